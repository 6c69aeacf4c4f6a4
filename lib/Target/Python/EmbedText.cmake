# Writes INPUT (a text file) to OUTPUT as a C++ raw string literal, for
# #include into a source file: the loader fx-translate embeds in the
# scripts it writes (python/fx_mlir/_rebuild.py).
file(READ "${INPUT}" text)
string(FIND "${text}" ")fxpy\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter )fxpy\"")
endif()
file(WRITE "${OUTPUT}.tmp" "R\"fxpy(${text})fxpy\"\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
