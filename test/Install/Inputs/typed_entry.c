/* Runs resnet18 through the typed entry point of the header fx-compile
   wrote (resnet18_forward), in C, and compares with eager PyTorch's output
   (raw float32 files). Usage: typed_entry model.so input.bin expected.bin */
#include "resnet18.h"

#include <math.h>
#include <stdio.h>

static float input[1 * 3 * 224 * 224], output[1000], expected[1000];

static int readFloats(const char *path, float *data, size_t count) {
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(data, sizeof(float), count, f) : 0;
  if (f)
    fclose(f);
  return got == count;
}

int main(int argc, char **argv) {
  char *error = NULL;
  fx_model *model;
  float worst = 0, scale = 0;
  int i;
  if (argc != 4 || !readFloats(argv[2], input, sizeof input / 4) ||
      !readFloats(argv[3], expected, 1000))
    return 2;
  model = fx_model_load(argv[1], &error);
  if (!model) {
    printf("load failed: %s\n", error);
    return 1;
  }
  printf("inputs %d, outputs %d\n", (int)fx_model_num_inputs(model),
         (int)fx_model_num_outputs(model));
  if (resnet18_forward(model, input, output, &error) != 0) {
    printf("run failed: %s\n", error);
    return 1;
  }
  for (i = 0; i < 1000; ++i) {
    float d = fabsf(output[i] - expected[i]);
    worst = d > worst ? d : worst;
    scale = fabsf(expected[i]) > scale ? fabsf(expected[i]) : scale;
  }
  printf("typed entry point: %s\n", worst <= 1e-4f * (scale > 1 ? scale : 1)
                                        ? "matches eager"
                                        : "DIFFERS from eager");
  /* A wrong input is refused with a message, not run. */
  {
    fx_tensor wrong = {input, "float32", 2, {3, 224}};
    fx_tensor out[1];
    if (fx_model_run(model, &wrong, 1, out, 1, &error) != 0)
      printf("refused: %s\n", error);
    free(error);
  }
  fx_model_free(model);
  return 0;
}
