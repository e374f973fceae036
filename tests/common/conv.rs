//! The float64 direct convolution the convolution tests compare against (`#[path]`-included
//! by the tests that use it).

/// One NHWC `Conv2D`: input `[n, h, w, c]`, a `[k, k, c, o]` filter, its stride and dilation
/// (the same on both axes) and explicit paddings `[top, bottom, left, right]`.
#[derive(Clone, Copy, Debug)]
pub struct Conv {
    pub n: usize,
    pub h: usize,
    pub w: usize,
    pub c: usize,
    pub o: usize,
    pub k: usize,
    pub stride: usize,
    pub dilation: usize,
    pub pad: [usize; 4],
}

impl Conv {
    fn out_side(&self, side: usize, before: usize, after: usize) -> usize {
        (side + before + after - self.dilation * (self.k - 1) - 1) / self.stride + 1
    }

    /// `[n, oh, ow, o]`.
    pub fn out_shape(&self) -> [usize; 4] {
        let [t, b, l, r] = self.pad;
        [self.n, self.out_side(self.h, t, b), self.out_side(self.w, l, r), self.o]
    }

    /// The convolution of `x` (`[n, h, w, c]`) with `f` (`[k, k, c, o]`) in float64,
    /// `[n, oh, ow, o]` row-major.
    pub fn reference(&self, x: &[f64], f: &[f64]) -> Vec<f64> {
        let [_, oh, ow, o] = self.out_shape();
        let (c, k) = (self.c, self.k);
        let inside = |pos: usize, pad: usize, side: usize| pos.checked_sub(pad).filter(|&v| v < side);
        let mut y = vec![0.0; self.n * oh * ow * o];
        for img in 0..self.n {
            for oy in 0..oh {
                for ox in 0..ow {
                    let out = &mut y[((img * oh + oy) * ow + ox) * o..][..o];
                    for ky in 0..k {
                        let Some(iy) = inside(oy * self.stride + ky * self.dilation, self.pad[0], self.h) else {
                            continue;
                        };
                        for kx in 0..k {
                            let Some(ix) = inside(ox * self.stride + kx * self.dilation, self.pad[2], self.w) else {
                                continue;
                            };
                            for ci in 0..c {
                                let xv = x[((img * self.h + iy) * self.w + ix) * c + ci];
                                let fr = &f[((ky * k + kx) * c + ci) * o..][..o];
                                out.iter_mut().zip(fr).for_each(|(a, &w)| *a += xv * w);
                            }
                        }
                    }
                }
            }
        }
        y
    }
}
