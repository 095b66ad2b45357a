; A hand-written AMDGPU test for `harness update-checks`: a few gfx950 functions, checked under
; SelectionDAG (SDAG) and GlobalISel (GISEL); CHECK holds what every RUN line agrees on, and the
; last RUN line (llc's default selector, CHECK alone) cannot check what the selectors disagree on.
; RUN: llc -mtriple=amdgcn -mcpu=gfx950 -global-isel=0 < %s | FileCheck --check-prefixes=CHECK,SDAG,GFX950 %s
; RUN: llc -mtriple=amdgcn -mcpu=gfx950 -global-isel=1 -global-isel-abort=1 < %s | FileCheck --check-prefixes=CHECK,GISEL %s
; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s | FileCheck %s

define float @fadd(float %a, float %b) {
; Checks of the RUN lines' prefixes are regenerated (a stale one was here); other comments stay.
; CHECK: v_sub_f32
  %r = fadd float %a, %b
  ret float %r
}

; fp8 x fp8: both sources read 8 registers, the exact width.
define <4 x float> @mfma_exact(<8 x i32> %a, <8 x i32> %b, <4 x float> %c) {
  %r = call <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32(<8 x i32> %a, <8 x i32> %b, <4 x float> %c, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0)
  ret <4 x float> %r
}

; fp4 x fp4 reads 4 registers each, but the IR passes 8: the over-wide tuple.
define <4 x float> @mfma_overwide(<8 x i32> %a, <8 x i32> %b, <4 x float> %c) {
; (kept: a comment right after `define` stays above the generated checks)
  %r = call <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32(<8 x i32> %a, <8 x i32> %b, <4 x float> %c, i32 4, i32 4, i32 0, i32 0, i32 0, i32 0)
  ret <4 x float> %r
}

define amdgpu_kernel void @store_shifted(ptr addrspace(1) %out, i32 %x) {
  %y = shl i32 %x, 3
  store i32 %y, ptr addrspace(1) %out
  ret void
}

declare <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32(<8 x i32>, <8 x i32>, <4 x float>, i32 immarg, i32 immarg, i32 immarg, i32, i32 immarg, i32)
