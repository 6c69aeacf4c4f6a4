//===- Importer.h - The TorchScript importer's walk -------------*- C++ -*-===//
//
// The state of one TorchScript import (ImportTorchScript.cpp): what FX
// holds for every TorchScript value (ImportValues.cpp), and the walk over
// the graph of `forward`. Control flow (prim::If, prim::Loop) is imported by
// ImportControlFlow.cpp into graphs of the graph module.
//
//===----------------------------------------------------------------------===//

#ifndef FX_MLIR_LIB_TARGET_TORCHSCRIPT_IMPORTER_H
#define FX_MLIR_LIB_TARGET_TORCHSCRIPT_IMPORTER_H

#include "fx-mlir/Dialect/FX/IR/FXAttrs.h"
#include "fx-mlir/Dialect/FX/IR/FXOps.h"
#include "fx-mlir/Target/TorchScript/ImportTorchScript.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

namespace mlir::fx::torchscript {

/// Reads an archive straight from the input buffer (no copy of the file)
/// and remembers how many bytes each read wrote at which address. LibTorch
/// reads a stored (uncompressed) record into the allocation its tensor's
/// storage then owns, so the bytes read at a storage's address are the
/// bytes its record really holds: the pickle's declared storage size is
/// checked against that, exactly, before a byte of it is used.
class RecordingReader : public caffe2::serialize::ReadAdapterInterface {
public:
  explicit RecordingReader(llvm::StringRef data) : data(data) {}

  size_t size() const override { return data.size(); }

  size_t read(uint64_t pos, void *buf, size_t n,
              const char * /*what*/) const override {
    if (pos >= data.size())
      return 0;
    size_t count = std::min<uint64_t>(n, data.size() - pos);
    std::memcpy(buf, data.data() + pos, count);
    std::lock_guard<std::mutex> lock(mutex);
    bytesReadAt[buf] = count;
    return count;
  }

  /// The bytes the last read into `address` wrote, if one did.
  std::optional<size_t> bytesAt(const void *address) const {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = bytesReadAt.find(address);
    if (it == bytesReadAt.end())
      return std::nullopt;
    return it->second;
  }

private:
  llvm::StringRef data;
  mutable std::mutex mutex;
  mutable std::unordered_map<const void *, size_t> bytesReadAt;
};

/// Thrown (and caught at the import entry) once a diagnostic is emitted.
struct ImportFailure {};

/// What FX holds for one TorchScript value.
struct FxValue {
  /// Stacked: a list of tensors a loop appended to, held as one tensor
  /// whose rows are the elements (`node`; ImportControlFlow.cpp).
  /// Packed: a quantized functional op's packed weights (`object`), read
  /// from the module attribute `path` (ImportQuantized.cpp).
  /// Dict: a dict of constant keys (`keys`, strings or ints) and
  /// `elements` (a traced model's `{"out": x}`; prim::DictConstruct).
  enum Kind {
    Node,
    Constant,
    List,
    Tuple,
    Dict,
    Module,
    State,
    Stacked,
    Packed
  };
  Kind kind = Constant;
  mlir::Value node;              // Node, Stacked
  Attribute constant;            // Constant
  std::vector<FxValue> elements; // List, Tuple, Dict
  std::vector<Attribute> keys;   // Dict
  std::string path;              // Module, State: qualified name
  torch::jit::Module module{};   // Module
  bool isParameter = false;      // State
  c10::IValue object;            // Packed

  static FxValue ofNode(mlir::Value v) {
    FxValue r;
    r.kind = Node;
    r.node = v;
    return r;
  }
  static FxValue ofConstant(Attribute a) {
    FxValue r;
    r.kind = Constant;
    r.constant = a;
    return r;
  }
};

std::string join(llvm::StringRef prefix, llvm::StringRef name);

/// `__torch__.torch.nn.modules.conv.___torch_mangle_3.Conv2d` ->
/// `torch.nn.Conv2d`; `__torch__.Block` -> `Block`.
std::string pythonTypeName(const torch::jit::Module &module);

// --- Quantized models (ImportQuantized.cpp) ----------------------------------

/// The `!quant.uniform` element type of a quantized tensor (quint8, qint8,
/// qint32; per tensor or per channel); null for any other tensor.
Type quantizedElementType(MLIRContext *ctx, const at::Tensor &tensor);
/// The public name of a quantized module's class from its TorchScript
/// name's atoms (`torch.ao.nn.quantized.modules.conv.Conv2d` ->
/// `torch.ao.nn.quantized.Conv2d`); "" for other classes.
std::string quantizedModuleTypeName(llvm::ArrayRef<std::string> parts);
/// Whether `type` (a public name) is a quantized module's.
bool isQuantizedModuleType(llvm::StringRef type);
/// torch.ao.nn.quantized.dynamic.LSTM or GRU (layers in packed cells).
bool isDynamicRecurrentType(llvm::StringRef type);

llvm::StringRef className(llvm::StringRef qualified);

/// FX's dtype names for c10 scalar types (DTypes.def); "" for the others.
llvm::StringRef dtypeName(c10::ScalarType type);

Type elementType(MLIRContext *ctx, c10::ScalarType type);

/// A Python-identifier node name from a TorchScript debug name or op name:
/// `x.1` -> `x`, `layer1.0.conv1` -> `layer1_0_conv1`, `aten::relu` -> `relu`.
std::string sanitizeName(llvm::StringRef name);

/// A TorchScript debug name without its uniquing suffix: `x.1` -> `x`.
std::string dropUniquingSuffix(llvm::StringRef debugName);

class Importer {
public:
  Importer(MLIRContext *ctx, llvm::StringRef fileName,
           const TorchScriptImportOptions &options,
           const RecordingReader &reader)
      : ctx(ctx), builder(ctx), fileName(fileName.str()), options(options),
        reader(reader) {}

  OwningOpRef<ModuleOp> run(torch::jit::Module &root);

private:
  // --- Diagnostics ---------------------------------------------------------
  Location sourceLoc(const torch::jit::Node *node);
  Location nodeLoc(llvm::StringRef name, const torch::jit::Node *node);
  [[noreturn]] void fail(const torch::jit::Node *node, const llvm::Twine &msg);

  // --- Values (ImportValues.cpp) -------------------------------------------
  Type typeOf(const c10::TypePtr &type);
  Type typeOf(const c10::IValue &value);
  Type typeOf(const torch::jit::Value *value);
  /// The imported value of `node`'s input `i`; fails naming the node when
  /// it was not imported.
  FxValue &inputValue(const torch::jit::Node *node, size_t i);
  void evaluate(torch::jit::Node *node, bool runMethod = false);
  bool importSizeArithmetic(torch::jit::Node *node);
  /// An operator on a dict the import holds (a dict display, a module's
  /// dict of constants), at a constant key: `d[k]` is the element,
  /// `k in d` and `len(d)` constants, `d[k] = v` sets the element of a dict
  /// made in the graph (ImportFolding.cpp). False when `node` is none.
  bool importHeldDictOp(torch::jit::Node *node);
  /// An operator on a list the import holds: `append` and `l[i] = v` on a
  /// list made in the graph, a slice of constant bounds, `len` (moved from
  /// importNode; ImportFolding.cpp). False when `node` is none.
  bool importHeldListOp(torch::jit::Node *node);
  bool isStaticValue(const torch::jit::Value *v, int depth = 0);
  /// Whether a tensor is computed from static values and tensor constants
  /// only (traced arithmetic on sizes in floats: `floor(size * 1.7)` as
  /// prim::NumToTensor, aten::to, aten::mul by a constant, aten::floor):
  /// the same whatever the inputs' values, as the ints torch.fx computes.
  bool isSizeDerivedTensor(const torch::jit::Value *v, int depth = 0);
  /// The int or bool (as 0 or 1) `v` is known to be when importing: an
  /// imported constant, or the example run's value of a static value.
  /// What decides a branch in line (importIf, simulateIf) and a loop's
  /// unrolling.
  std::optional<int64_t> knownInt(const torch::jit::Value *v);
  bool mutatesHeldList(const torch::jit::Node *node);
  bool foldConstantCall(torch::jit::Node *node, ArrayRef<FxValue> args,
                        ArrayRef<std::pair<std::string, FxValue>> kwargs);
  std::optional<FxValue> sizeIntOf(const torch::jit::Value *v);
  FxValue constantOf(const c10::IValue &value, const torch::jit::Node *node,
                     const c10::TypePtr &realType = nullptr);
  Attribute toArg(const FxValue &value, SmallVectorImpl<mlir::Value> &inputs,
                  const torch::jit::Node *node);
  /// prim::SetAttr of a buffer in the forward graph.
  void importSetAttr(torch::jit::Node *node);
  mlir::Value asNode(const FxValue &value, const torch::jit::Node *node);
  std::string uniqueName(llvm::StringRef base);
  mlir::Value stateNode(const std::string &path, const torch::jit::Node *node);
  mlir::Value getitem(mlir::Value of, int64_t index, Type type,
                      const torch::jit::Node *node);
  /// The args and kwargs of a call node, their node references indexing
  /// `inputs`.
  std::pair<ArrayAttr, DictAttr>
  callArgs(llvm::ArrayRef<FxValue> args,
           llvm::ArrayRef<std::pair<std::string, FxValue>> kwargs,
           SmallVectorImpl<mlir::Value> &inputs, const torch::jit::Node *node);
  /// Forgets the example values of `node`'s outputs (it did not run).
  void forgetOutputs(const torch::jit::Node *node);

  // --- Graph walk ----------------------------------------------------------
  bool isLeaf(const torch::jit::Module &module);
  /// Whether `module` keeps constants or plain attributes (a scripted
  /// torch.nn module's hyperparameters); a traced one keeps none.
  static bool recordsHyperparameters(const torch::jit::Module &module);
  /// Whether attribute `slot` of `module` is a plain attribute (not its
  /// training flag, a private one, a parameter, a buffer or a submodule):
  /// a hyperparameter.
  static bool isHyperparameterSlot(const torch::jit::Module &module,
                                   size_t slot);
  void importBlock(torch::jit::Block *block);
  void importNode(torch::jit::Node *node);
  void importCall(torch::jit::Node *node, const std::string &target,
                  std::vector<FxValue> args,
                  std::vector<std::pair<std::string, FxValue>> kwargs,
                  bool isModule);
  std::vector<FxValue> inlineMethod(const FxValue &self,
                                    const std::string &method,
                                    std::vector<FxValue> args,
                                    torch::jit::Node *call);

  // --- State ---------------------------------------------------------------
  /// Declares `tensor` as state `path`. `fromArchive`: its storage was
  /// read from the archive, and its sizes are checked against the bytes
  /// the reader wrote there; a tensor LibTorch made while importing (a
  /// packed params object's unpacked weight) owns a fresh allocation, which
  /// may sit where a record the loader has since freed was read (a
  /// scripted quantized conv's serialized weight, repacked on load).
  void declareState(const std::string &path, const at::Tensor &tensor,
                    StateKind kind, bool fromArchive = true);
  void declareModule(const std::string &path, const torch::jit::Module &module);
  /// A module's hyperparameters, as its fx.submodule records them.
  DictAttr hyperparameters(const std::string &path,
                           const torch::jit::Module &module);
  /// A quantized module's hyperparameters beyond its attributes (passed to
  /// `add`) and its weight and bias, unpacked from its packed params
  /// (ImportQuantized.cpp).
  void declareQuantizedModule(
      const std::string &path, const torch::jit::Module &module,
      llvm::function_ref<void(const std::string &, const c10::IValue &)> add);
  /// A quantized linear or conv operator on packed weights a module
  /// attribute holds (convert_fx's F.linear / F.conv2d on the model's
  /// weights) as a call of the quantized module computing it; false when
  /// `node` is not one (ImportQuantized.cpp).
  bool importPackedCall(torch::jit::Node *node);
  /// A quantized Embedding's or EmbeddingBag's `embedding_byte` /
  /// `embedding_bag_byte` on its packed table as the float embedding (bag)
  /// of the table's rows, a constant `<module>.weight`; false when `node`
  /// is not one (ImportQuantized.cpp).
  bool importEmbeddingCall(torch::jit::Node *node);
  /// A dynamic quantized LSTM's or GRU's layer weights and biases,
  /// unpacked from its packed cells, as the state `<path>.weight_ih_l0`,
  /// `<path>.bias_hh_l1_reverse`, ... (PyTorch's names).
  void declareRecurrentState(const std::string &path,
                             const torch::jit::Module &module);
  /// A call of a traced dynamic quantized LSTM or GRU (whose forward
  /// returns the results the caller read, flat: `(output, h, c)`, or
  /// `output` alone) as the module's call, `(output, (h, c))` or
  /// `(output, h)`, and the results read from it; false for any other
  /// call.
  bool importRecurrentCall(torch::jit::Node *node, const FxValue &self,
                           std::vector<FxValue> args);
  /// The results of `op` (a LibTorch operator of no overload name) on the
  /// packed weights `packed`; a failure names `what` (and `node`).
  std::vector<c10::IValue> callOnPacked(const torch::jit::Node *node,
                                        const std::string &what,
                                        const std::string &op,
                                        const c10::IValue &packed);
  /// The packed weights unpacked by `unpack` (`quantized::conv2d_unpack`)
  /// and declared as the state `<path>.weight` and `<path>.bias`: the
  /// weight, and whether there is a bias.
  std::pair<at::Tensor, bool> declareUnpacked(const torch::jit::Node *node,
                                              const std::string &what,
                                              const std::string &unpack,
                                              const c10::IValue &packed,
                                              const std::string &path);

  MLIRContext *ctx;
  OpBuilder builder;
  std::string fileName;
  const TorchScriptImportOptions &options;
  const RecordingReader &reader;

  GraphModuleOp graphModule;
  GraphOp graphOp;
  std::map<const torch::jit::Value *, FxValue> values;
  /// The prim::NumToTensor results of ints known not to be negative
  /// (sizes; importSizeArithmetic).
  llvm::DenseSet<mlir::Value> nonNegativeSizes;
  /// The branches of prim::If nodes imported in line (their predicate
  /// known): what they do, they do unconditionally.
  std::set<const torch::jit::Block *> inlinedBlocks;
  /// With example inputs: the value every TorchScript value takes, from
  /// running the graph on them (what ShapeProp does for an FX graph).
  std::map<const torch::jit::Value *, c10::IValue> concrete;
  llvm::StringMap<unsigned> nameCounts;
  std::vector<std::string> modulePathStack{""};
  llvm::StringMap<mlir::Value> stateNodes; // get_attr node per state path
  /// The value each buffer the forward assigned (prim::SetAttr) holds now:
  /// later reads of the buffer read it.
  std::map<std::string, FxValue> assignedState;
  llvm::StringSet<> declaredState, declaredModules;
  std::map<const c10::TensorImpl *, std::string> firstNameOfTensor;
  /// The tensors firstNameOfTensor names, held so that no other tensor (a
  /// quantized module's weights, unpacked for it) gets a freed one's
  /// address and passes for an alias of it.
  std::vector<at::Tensor> declaredTensors;
  unsigned tensorConstants = 0;

  // --- Control flow (ImportControlFlow.cpp) ---------------------------------
  // prim::If and prim::Loop become higher-order calls (ControlFlow.h) whose
  // branches and bodies are graphs of the graph module. With example
  // inputs, a control-flow node is first run on them (simulate): every
  // branch (the one not taken speculatively, on copies of its inputs) and
  // every iteration, and each value inside gets the type of all the
  // values it took, joined (a dim that differs is dynamic).
public:
  /// A leading placeholder of a graph made from a block: bound to
  /// `value` when given.
  struct Leading {
    const torch::jit::Value *value;
    std::string name;
    Type type;
    /// `value` is a list the block appends to: the placeholder is the
    /// stacked tensor it starts from (see `accumulating`).
    bool accumulates = false;
  };

private:
  void importIf(torch::jit::Node *node);
  void importLoop(torch::jit::Node *node);
  /// A counted loop over numbers only (F.interpolate's `for _ in
  /// range(dim): scale_factors.append(scale)`) whose trip count is known
  /// when importing: its body imported once per iteration, as torch.fx's
  /// tracer runs a Python loop. False (nothing imported) for other loops.
  bool unrollNumberLoop(torch::jit::Node *node);
  void simulate(torch::jit::Node *node);
  void simulateBlock(torch::jit::Block *block);
  void simulateIf(torch::jit::Node *node);
  /// Runs the branch of `node` its predicate does not take, only to find
  /// the types of its values (simulateIf, when the predicate is not known
  /// when importing).
  void simulateOtherBranch(torch::jit::Node *node,
                           torch::jit::Block *otherBlock);
  void simulateLoop(torch::jit::Node *node);
  void simulateMethod(torch::jit::Node *node);
  void joinType(const torch::jit::Value *value, Type type);
  /// The values `node`'s blocks use that are defined outside it, in order.
  std::vector<torch::jit::Value *> capturedValues(torch::jit::Node *node);
  /// The nodes those values hold (inside lists and tuples too), in order.
  SmallVector<mlir::Value>
  outerNodes(llvm::ArrayRef<torch::jit::Value *> values,
             torch::jit::Node *node);
  /// Imports `block` (if any) as a new graph named after `base`: its
  /// placeholders are `leading` then one per node of `outer`; it returns
  /// the tuple `results` gives once the block is imported.
  std::string importSubgraph(
      llvm::StringRef base, llvm::ArrayRef<Leading> leading,
      llvm::ArrayRef<mlir::Value> outer, torch::jit::Block *block,
      llvm::function_ref<std::vector<FxValue>(llvm::ArrayRef<mlir::Value>)>
          results,
      torch::jit::Node *node);
  /// A node or a bool/int/float constant a control-flow call can pass.
  Attribute controlFlowArg(const FxValue &value,
                           SmallVectorImpl<mlir::Value> &inputs,
                           torch::jit::Node *node, const llvm::Twine &what);
  mlir::Value graphNode(const std::string &graph, torch::jit::Node *node);
  /// A call node of `target` with node or constant `args`, typed `type`.
  mlir::Value
  callNode(llvm::StringRef base, llvm::StringRef target,
           llvm::ArrayRef<FxValue> args, Type type, torch::jit::Node *node,
           llvm::ArrayRef<std::pair<std::string, FxValue>> kwargs = {});
  /// Imports `node` if it appends to, or reads, a list a loop accumulates
  /// (`outs.append(h)` in the body, `torch.stack(outs)` after it).
  bool importAccumulated(torch::jit::Node *node);

  GraphOp forwardGraph;
  /// Each value's type joined over the values it took when simulated.
  std::map<const torch::jit::Value *, Type> joinedTypes;
  /// Values that took values of different ranks or dtypes.
  std::set<const torch::jit::Value *> conflicting;
  /// The iterations each loop ran when simulated (the most of any run).
  std::map<const torch::jit::Node *, int64_t> loopRuns;
  llvm::StringMap<unsigned> graphCounts;
  /// The lists the loop bodies being imported append to: the list's
  /// TorchScript value -> the stacked tensor so far, in the body's graph.
  std::map<const torch::jit::Value *, mlir::Value> accumulating;
  int speculative = 0;
  int controlDepth = 0;
  bool simulating = false;
};

/// Whether `type` holds no tensor (a number, bool, string, None, or a list
/// or tuple of those).
bool holdsNoTensor(const c10::TypePtr &type);

/// Inlines every call of a free TorchScript function in `graph` (in
/// place), as TorchScript's inliner does; method calls stay.
void inlineFunctionCalls(torch::jit::Graph &graph);

/// Passes a 0-d tensor constant as the second operand of aten::add, sub,
/// mul and div as a number (the `.Scalar` overloads), as LibTorch's graph
/// executor does before it runs a graph (CanonicalizeOps). A trace records
/// `x * 0.5` so: as a number, 0.5 takes part in type promotion as Python's
/// float does (an int tensor times it is float32, not float64).
void scalarizeConstantOperands(torch::jit::Block *block);

/// Readies a method's graph for the import walk, in place: its free
/// function calls inlined (inlineFunctionCalls), its 0-d tensor constant
/// operands passed as numbers (scalarizeConstantOperands), and the reads
/// of the attributes it assigns moved out of its control flow.
void prepareGraph(torch::jit::Graph &graph);

} // namespace mlir::fx::torchscript

#endif // FX_MLIR_LIB_TARGET_TORCHSCRIPT_IMPORTER_H
