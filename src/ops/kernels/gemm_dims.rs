//! The shape of a matrix product as the GEMM kernels read it (`matmul.rs`, `gemm_rten.rs`).

/// Sizes and (row, column) strides of a product `[m, k] @ [k, n]`: `a`'s element
/// `(i, p)` is at `i * rsa + p * csa`, `b`'s `(p, j)` at `p * rsb + j * csb`.
#[derive(Clone, Copy)]
pub(crate) struct Dims {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub rsa: isize,
    pub csa: isize,
    pub rsb: isize,
    pub csb: isize,
}
