//===- BufferLifetimes.cpp - Allocate late, free early --------------------===//
//
// fx-cpu-shorten-buffer-lifetimes: bufferization allocates a buffer where
// its tensor was created and upstream's ownership-based deallocation frees
// it at the end of its block. A graph's function is one block, so every
// intermediate buffer would live to the return. The pass moves each alloc
// down to the first use of the buffer (or an alias) and each dealloc up to
// the last.
//
//===----------------------------------------------------------------------===//

#include "fx-mlir/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUPLANWORKSPACE
#define GEN_PASS_DEF_FXCPUSHORTENBUFFERLIFETIMES
#include "fx-mlir/Conversion/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// The first and last ops of `alloc`'s block that use its buffer or one of
/// the buffer's `aliases` (a use in a nested region counts as its
/// ancestor's), deallocs aside; nullopt if there is no such op, if an alias
/// is used outside the block, or if the buffer has more than one dealloc.
std::optional<std::pair<Operation *, Operation *>>
usesInBlock(memref::AllocOp alloc,
            const BufferViewFlowAnalysis::ValueSetT &aliases) {
  Block *block = alloc->getBlock();
  Operation *first = nullptr, *last = nullptr;
  int deallocs = 0;
  for (Value alias : aliases) {
    for (Operation *user : alias.getUsers()) {
      if (isa<memref::DeallocOp>(user)) {
        if (++deallocs > 1)
          return std::nullopt;
        continue;
      }
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        return std::nullopt;
      if (!first || ancestor->isBeforeInBlock(first))
        first = ancestor;
      if (!last || last->isBeforeInBlock(ancestor))
        last = ancestor;
    }
  }
  if (!first)
    return std::nullopt;
  return std::make_pair(first, last);
}

/// Moves the allocs of constant size in the body of an scf.for, freed in
/// the same body, out of it (the dealloc after it): one buffer serves every
/// iteration instead of one allocation each (a large one is fresh pages
/// every time). Inner loops first, so a buffer moves out of a whole nest.
/// Parallel loops keep theirs: each thread needs its own.
void hoistOutOfSequentialLoops(func::FuncOp func) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  for (memref::AllocOp alloc : allocs) {
    if (alloc->getNumOperands() != 0)
      continue;
    memref::DeallocOp dealloc;
    for (Operation *user : alloc->getUsers())
      if (auto d = dyn_cast<memref::DeallocOp>(user))
        dealloc = d;
    while (dealloc && dealloc->getBlock() == alloc->getBlock()) {
      auto loop = dyn_cast<scf::ForOp>(alloc->getParentOp());
      if (!loop)
        break;
      alloc->moveBefore(loop);
      dealloc->moveAfter(loop);
    }
  }
}

struct CPUShortenBufferLifetimesPass
    : public mlir::fx::impl::FXCPUShortenBufferLifetimesBase<
          CPUShortenBufferLifetimesPass> {
  void runOnOperation() override {
    hoistOutOfSequentialLoops(getOperation());
    BufferViewFlowAnalysis aliasing(getOperation());
    SmallVector<memref::AllocOp> allocs;
    getOperation().walk(
        [&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    // Every move is decided on the order as it is, then made: a move
    // invalidates the block's cached op order, and deciding after each
    // move made every order query rescan the block (quadratic in the
    // graph). No alloc or dealloc is another buffer's first or last user,
    // so the decisions do not depend on each other's moves.
    SmallVector<std::pair<Operation *, Operation *>> moveBefore, moveAfter;
    for (memref::AllocOp alloc : allocs) {
      auto uses = usesInBlock(alloc, aliasing.resolve(alloc.getResult()));
      if (!uses)
        continue;
      auto [first, last] = *uses;
      // Sizes computed by earlier ops keep the alloc where it is.
      if (alloc->getNumOperands() == 0 && first != alloc)
        moveBefore.push_back({alloc, first});
      for (Operation *user : alloc->getUsers()) {
        auto dealloc = dyn_cast<memref::DeallocOp>(user);
        if (dealloc && dealloc->getBlock() == alloc->getBlock() &&
            last->isBeforeInBlock(dealloc))
          moveAfter.push_back({dealloc, last});
      }
    }
    for (auto [op, first] : moveBefore)
      op->moveBefore(first);
    for (auto [op, last] : moveAfter)
      op->moveAfter(last);
  }
};

} // namespace

namespace {

/// Buffers of at least this many bytes go to the workspace. Smaller ones
/// keep malloc, which serves them from its free lists without fresh pages,
/// and LLVM knows they alias nothing else (views of one workspace may, as
/// far as it can tell: a transformer block measured 10% slower with all
/// of its buffers in the workspace).
constexpr uint64_t kWorkspaceBytes = 512 * 1024;

/// A buffer of the workspace: its alloc and dealloc, their positions in the
/// function's block, its size and (once placed) its offset, in bytes.
struct WorkspaceBuffer {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
  unsigned begin, end;
  uint64_t bytes, offset = 0;
};

/// The buffers of `block` that live in the workspace: allocs of constant
/// size (kWorkspaceBytes or more) with an identity layout and one dealloc,
/// both in `block`.
SmallVector<WorkspaceBuffer> workspaceBuffers(Block &block) {
  DenseMap<Operation *, unsigned> position;
  for (Operation &op : block)
    position[&op] = position.size();
  SmallVector<WorkspaceBuffer> buffers;
  for (auto alloc : block.getOps<memref::AllocOp>()) {
    MemRefType type = alloc.getType();
    if (alloc->getNumOperands() != 0 || !type.getLayout().isIdentity() ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0 || type.getMemorySpace())
      continue;
    memref::DeallocOp dealloc;
    bool other = false;
    for (Operation *user : alloc->getUsers()) {
      if (auto d = dyn_cast<memref::DeallocOp>(user)) {
        other |= d->getBlock() != &block || dealloc;
        dealloc = d;
      }
    }
    if (!dealloc || other)
      continue;
    uint64_t bytes =
        type.getNumElements() * (type.getElementTypeBitWidth() / 8);
    if (bytes < kWorkspaceBytes)
      continue;
    buffers.push_back({alloc, dealloc, position[alloc], position[dealloc],
                       llvm::alignTo(bytes, 64)});
  }
  return buffers;
}

/// Gives each buffer an offset such that buffers live at the same time do
/// not overlap: largest first, each at the lowest offset free during its
/// lifetime. Returns the workspace's size.
uint64_t placeBuffers(MutableArrayRef<WorkspaceBuffer> buffers) {
  SmallVector<WorkspaceBuffer *> order;
  for (WorkspaceBuffer &buffer : buffers)
    order.push_back(&buffer);
  llvm::stable_sort(order, [](WorkspaceBuffer *a, WorkspaceBuffer *b) {
    return a->bytes > b->bytes;
  });
  SmallVector<WorkspaceBuffer *> placed;
  uint64_t size = 0;
  for (WorkspaceBuffer *buffer : order) {
    SmallVector<std::pair<uint64_t, uint64_t>> taken;
    for (WorkspaceBuffer *other : placed)
      if (other->begin < buffer->end && buffer->begin < other->end)
        taken.push_back({other->offset, other->offset + other->bytes});
    llvm::sort(taken);
    uint64_t offset = 0;
    for (auto [from, to] : taken) {
      if (offset + buffer->bytes <= from)
        break;
      offset = std::max(offset, to);
    }
    buffer->offset = offset;
    size = std::max(size, offset + buffer->bytes);
    placed.push_back(buffer);
  }
  return size;
}

struct CPUPlanWorkspacePass
    : public mlir::fx::impl::FXCPUPlanWorkspaceBase<CPUPlanWorkspacePass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        plan(func);
  }

  void plan(func::FuncOp func) {
    Block &block = func.getBody().front();
    SmallVector<WorkspaceBuffer> buffers = workspaceBuffers(block);
    // One buffer too: malloc would map it afresh on many calls (glibc
    // trims the top of its heap when a large buffer is freed).
    if (buffers.empty())
      return;
    uint64_t size = placeBuffers(buffers);
    OpBuilder builder(func);
    auto type = MemRefType::get({static_cast<int64_t>(size)},
                                builder.getIntegerType(8));
    auto global = memref::GlobalOp::create(
        builder, func.getLoc(), (func.getSymName() + "__fx_workspace").str(),
        builder.getStringAttr("private"), type, builder.getUnitAttr(),
        /*constant=*/false, builder.getI64IntegerAttr(64));
    builder.setInsertionPointToStart(&block);
    Value workspace = memref::GetGlobalOp::create(builder, func.getLoc(), type,
                                                  global.getSymName());
    for (WorkspaceBuffer &buffer : buffers) {
      builder.setInsertionPoint(buffer.alloc);
      Value offset = arith::ConstantIndexOp::create(
          builder, buffer.alloc.getLoc(), buffer.offset);
      auto view = memref::ViewOp::create(builder, buffer.alloc.getLoc(),
                                         buffer.alloc.getType(), workspace,
                                         offset, ValueRange());
      buffer.alloc.replaceAllUsesWith(view.getResult());
      buffer.dealloc.erase();
      buffer.alloc.erase();
    }
  }
};

} // namespace
