//===- OptimizeLLVMIR.cpp - LLVM's O3 over a kernel's module -------------===//
#include "compiler/OptimizeLLVMIR.h"
#include "compiler/EvictionHints.h"
#include "compiler/LLVMDiagnostics.h"
#include "compiler/gpu/NVPTXTarget.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

namespace blockjit {

namespace {

/// A full warp's vote.ballot.sync of a predicate LLVM has folded to a
/// constant is that constant's ballot: every lane votes alike (all 32
/// execute it, or the program is undefined). LLVM does not fold it itself;
/// the word-pair lowering of rows (Memory.cpp) ballots masks that a mask
/// bound's range folds to constants.
struct FoldConstantBallots : llvm::PassInfoMixin<FoldConstantBallots> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &) {
    bool changed = false;
    for (llvm::Instruction &inst :
         llvm::make_early_inc_range(llvm::instructions(function))) {
      auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
      if (!call ||
          call->getIntrinsicID() != llvm::Intrinsic::nvvm_vote_ballot_sync)
        continue;
      auto *members = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
      auto *vote = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(1));
      if (!members || !vote || !members->isAllOnesValue())
        continue;
      call->replaceAllUsesWith(
          vote->isOne() ? llvm::Constant::getAllOnesValue(call->getType())
                        : llvm::Constant::getNullValue(call->getType()));
      call->eraseFromParent();
      changed = true;
    }
    return changed ? llvm::PreservedAnalyses::none()
                   : llvm::PreservedAnalyses::all();
  }
};

/// bf16 -> f32 of an element of a vector, as the bits it is: a bf16 is the
/// high half of the f32 of the same value, so the vector read as 32-bit
/// words gives a word's low element with `shl word, 16` and its high one
/// with `and word, 0xffff0000`, one instruction each, where ptxas spends a
/// PRMT and a shift on cvt.f32.bf16 of a high half (bf16 layernorm of 12288
/// columns on 16 warps: 816 -> 760 SASS instructions with its fma). Exact
/// for every value. A select of such an element (a masked read of shared
/// memory) becomes a select of f32s, the other side fpext'ed. Only vectors read
/// whole are widened: a load, or a phi or select of loads and constants (a
/// masked load and its `other`); a vector assembled lane by lane (a load whose
/// mask varies within it, as softmax_causal's) keeps fpext, as do phis of
/// widened scalars: either made ptxas hold the elements as f32 rather than
/// packed (causal 4096 x 12288 on 4 warps: 128 -> 162 registers, -10 %; its
/// rows of 781: -5 %). NVPTX only: x86 widens bf16 with a shift anyway.
struct WidenBF16AsBits : llvm::PassInfoMixin<WidenBF16AsBits> {
  /// How deep selects are looked through.
  static constexpr int kMaxDepth = 4;

  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &) {
    bool changed = false;
    for (llvm::Instruction &inst :
         llvm::make_early_inc_range(llvm::instructions(function))) {
      auto *ext = llvm::dyn_cast<llvm::FPExtInst>(&inst);
      if (!ext || !ext->getSrcTy()->isBFloatTy() ||
          !ext->getDestTy()->isFloatTy() ||
          !canWiden(ext->getOperand(0), /*depth=*/0))
        continue;
      llvm::IRBuilder<> builder(ext);
      ext->replaceAllUsesWith(widen(builder, ext->getOperand(0), 0));
      ext->eraseFromParent();
      changed = true;
    }
    return changed ? llvm::PreservedAnalyses::none()
                   : llvm::PreservedAnalyses::all();
  }

  /// Whether `vector` was read whole: a load, a constant, or a phi or
  /// whole-vector select of them.
  /// Not a constant with a poison lane: its word would be poison, and with
  /// it the defined lane beside it.
  static bool readWhole(llvm::Value *vector) {
    auto isRead = [](llvm::Value *v) {
      if (auto *constant = llvm::dyn_cast<llvm::Constant>(v))
        return !constant->containsPoisonElement();
      return llvm::isa<llvm::LoadInst>(v);
    };
    if (isRead(vector))
      return true;
    // A branch-free masked load: the loaded vector or its `other`, whole.
    if (auto *select = llvm::dyn_cast<llvm::SelectInst>(vector))
      return select->getCondition()->getType()->isIntegerTy(1) &&
             isRead(select->getTrueValue()) && isRead(select->getFalseValue());
    auto *phi = llvm::dyn_cast<llvm::PHINode>(vector);
    return phi && llvm::all_of(phi->incoming_values(), isRead);
  }

  /// `value`'s element index when it is a constant-index element of a
  /// vector of an even number of bf16 read whole.
  static std::optional<uint64_t> vectorElementIndex(llvm::Value *value) {
    auto *extract = llvm::dyn_cast<llvm::ExtractElementInst>(value);
    if (!extract)
      return std::nullopt;
    auto *type =
        llvm::dyn_cast<llvm::FixedVectorType>(extract->getVectorOperandType());
    auto *index = llvm::dyn_cast<llvm::ConstantInt>(extract->getIndexOperand());
    if (!type || !type->getElementType()->isBFloatTy() ||
        type->getNumElements() % 2 || !index ||
        index->getZExtValue() >= type->getNumElements() ||
        !readWhole(extract->getVectorOperand()))
      return std::nullopt;
    return index->getZExtValue();
  }

  /// Whether widen() takes some of `value`'s bits from a vector's word.
  static bool canWiden(llvm::Value *value, int depth) {
    if (vectorElementIndex(value))
      return true;
    auto *select = llvm::dyn_cast<llvm::SelectInst>(value);
    return select && depth < kMaxDepth &&
           (canWiden(select->getTrueValue(), depth + 1) ||
            canWiden(select->getFalseValue(), depth + 1));
  }

  /// `value` (a bf16) as f32: from its vector's word where canWiden says
  /// so, else fpext; new instructions go at `builder`'s insertion point.
  static llvm::Value *widen(llvm::IRBuilder<> &builder, llvm::Value *value,
                            int depth) {
    llvm::Type *f32 = builder.getFloatTy();
    if (!canWiden(value, depth))
      return builder.CreateFPExt(value, f32);
    if (auto *select = llvm::dyn_cast<llvm::SelectInst>(value)) {
      llvm::Value *onTrue = widen(builder, select->getTrueValue(), depth + 1);
      llvm::Value *onFalse = widen(builder, select->getFalseValue(), depth + 1);
      return builder.CreateSelect(select->getCondition(), onTrue, onFalse);
    }
    uint64_t k = *vectorElementIndex(value);
    auto *extract = llvm::cast<llvm::ExtractElementInst>(value);
    auto *type =
        llvm::cast<llvm::FixedVectorType>(extract->getVectorOperandType());
    llvm::Value *words = builder.CreateBitCast(
        extract->getVectorOperand(),
        llvm::FixedVectorType::get(builder.getInt32Ty(),
                                   type->getNumElements() / 2));
    llvm::Value *word = builder.CreateExtractElement(words, k / 2);
    llvm::Value *bits = k % 2 ? builder.CreateAnd(word, 0xffff0000u)
                              : builder.CreateShl(word, 16);
    return builder.CreateBitCast(bits, f32);
  }
};

/// `mul i64 (sext i32 a), (sext i32 b)`, a row times its stride in a
/// pointer offset widened to 64 bits (blk-widen-offsets): NVPTX selects
/// mul.wide.s32 for it only where its one-block DAG sees both sexts, and O3
/// hoists a loop-invariant stride's sext to the entry (copies beside the
/// multiply do not last: NVPTX's own GVN merges them back), so it
/// multiplied in 64 bits, three IMADs and uniform sign fix-ups before a
/// row's first load. As inline mul.wide.s32 it is one IMAD.WIDE, the same
/// exact product: bf16 softmax_backward of 4096 on 8 warps reaches its
/// first load after 45 SASS instructions instead of 60. H200, rows of 781
/// and 1024 at M = 4096: 0.6-3.7 % faster (docs/EXAMPLES.md, softmax_backward).
struct WideMulOfSExts : llvm::PassInfoMixin<WideMulOfSExts> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &) {
    auto narrowed = [](llvm::Value *value) -> llvm::Value * {
      auto *ext = llvm::dyn_cast<llvm::SExtInst>(value);
      return ext && ext->getSrcTy()->isIntegerTy(32) ? ext->getOperand(0)
                                                     : nullptr;
    };
    bool changed = false;
    for (llvm::Instruction &inst :
         llvm::make_early_inc_range(llvm::instructions(function))) {
      auto *mul = llvm::dyn_cast<llvm::BinaryOperator>(&inst);
      if (!mul || mul->getOpcode() != llvm::Instruction::Mul ||
          !mul->getType()->isIntegerTy(64))
        continue;
      llvm::Value *lhs = narrowed(mul->getOperand(0));
      llvm::Value *rhs = narrowed(mul->getOperand(1));
      if (!lhs || !rhs)
        continue;
      llvm::IRBuilder<> builder(mul);
      auto *asmValue = llvm::InlineAsm::get(
          llvm::FunctionType::get(builder.getInt64Ty(),
                                  {lhs->getType(), rhs->getType()}, false),
          "mul.wide.s32 $0, $1, $2;", "=l,r,r", /*hasSideEffects=*/false);
      llvm::CallInst *call = builder.CreateCall(asmValue, {lhs, rhs});
      call->setDoesNotThrow();
      call->setDoesNotAccessMemory();
      mul->replaceAllUsesWith(call);
      mul->eraseFromParent();
      changed = true;
    }
    return changed ? llvm::PreservedAnalyses::none()
                   : llvm::PreservedAnalyses::all();
  }
};

} // namespace

llvm::Error optimizeLLVMIR(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);

  builder.registerPeepholeEPCallback(
      [](llvm::FunctionPassManager &passes, llvm::OptimizationLevel) {
        passes.addPass(FoldConstantBallots());
      });
  if (machine.getTargetTriple().isNVPTX()) {
    // Before O3, whose InstCombine splits a vector read of shared memory
    // into scalar loads (whose elements have no word left to take), and
    // after it, when SimplifyCFG has sunk branches' loads into one phi.
    auto widen = [](llvm::ModulePassManager &passes) {
      passes.addPass(
          llvm::createModuleToFunctionPassAdaptor(WidenBF16AsBits()));
    };
    // Eviction hints become inline PTX before O3 too: O3 merges a versioned
    // access's two copies (SimplifyCFG's hoisting) and drops metadata it
    // does not know on the way.
    int sm = smArchOf(machine);
    int ptx = ptxVersionFor(sm);
    builder.registerPipelineStartEPCallback(
        [widen, sm, ptx](llvm::ModulePassManager &passes,
                         llvm::OptimizationLevel) {
          widen(passes);
          passes.addPass(llvm::createModuleToFunctionPassAdaptor(
              LowerEvictionHints(sm, ptx)));
        });
    builder.registerOptimizerLastEPCallback(
        [widen](llvm::ModulePassManager &passes, llvm::OptimizationLevel,
                llvm::ThinOrFullLTOPhase) {
          widen(passes);
          // Last: O3's passes before it still see a plain multiply.
          passes.addPass(
              llvm::createModuleToFunctionPassAdaptor(WideMulOfSExts()));
        });
  }
  LLVMDiagnosticsCollector diagnostics(module.getContext());
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, mam);
  if (!diagnostics.errors().empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "LLVM optimization failed: " +
                                       diagnostics.errors());
  return llvm::Error::success();
}

} // namespace blockjit
