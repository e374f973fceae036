//! TensorFlow's distributions over Philox words (`random_distributions.h`) and its CPU
//! fill (`FillPhiloxRandom` in `random_op_cpu.h`): uniform floats from the words' mantissa
//! bits, normals by Box-Muller, truncated normals by rejection, each output group drawn
//! from its own place in the generator's stream so that values do not depend on how the
//! work is split.

use super::philox::Philox;

/// Which distribution a random op samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dist {
    /// `[0, 1)`.
    Uniform,
    /// Standard normal.
    Normal,
    /// Standard normal, redrawn beyond two standard deviations.
    Truncated,
}

/// Philox outputs reserved per truncated-normal output (TensorFlow's
/// `kReservedSamplesPerOutput`): each group of outputs starts this far along the stream.
const RESERVED_PER_OUTPUT: u64 = 256;

/// A float in `[0, 1)` from a word's low 23 bits (TensorFlow's `Uint32ToFloat`).
pub(crate) fn u32_to_f32(x: u32) -> f32 {
    f32::from_bits((127 << 23) | (x & 0x7f_ffff)) - 1.0
}

/// A double in `[0, 1)` from two words' low 52 bits (TensorFlow's `Uint64ToDouble`).
pub(crate) fn u64_to_f64(x0: u32, x1: u32) -> f64 {
    let bits = ((u64::from(x0) << 32) | u64::from(x1)) & ((1u64 << 52) - 1);
    f64::from_bits((1023u64 << 52) | bits) - 1.0
}

/// Two float normals from two words (TensorFlow's `BoxMullerFloat`; the angle is
/// computed in double, as `2.0f * M_PI * u` is, then rounded).
fn box_muller_f32(x0: u32, x1: u32) -> [f32; 2] {
    let u1 = u32_to_f32(x0).max(1.0e-7);
    let v1 = (2.0 * std::f64::consts::PI * f64::from(u32_to_f32(x1))) as f32;
    let u2 = (-2.0f32 * u1.ln()).sqrt();
    [v1.sin() * u2, v1.cos() * u2]
}

/// Two double normals from four words (TensorFlow's `BoxMullerDouble`).
fn box_muller_f64(x: [u32; 4]) -> [f64; 2] {
    let u1 = u64_to_f64(x[0], x[1]).max(1.0e-7);
    let v1 = 2.0 * std::f64::consts::PI * u64_to_f64(x[2], x[3]);
    let u2 = (-2.0 * u1.ln()).sqrt();
    [v1.sin() * u2, v1.cos() * u2]
}

/// An output element type of the random ops: how many values one group holds and how
/// a group is drawn.
pub(crate) trait Sample: Copy + Default {
    /// Values per group (TensorFlow's `kResultElementCount`).
    const GROUP: usize;
    /// One group of uniform values from one Philox block.
    fn uniform(block: [u32; 4], out: &mut [Self]);
    /// One group of normal values from one Philox block.
    fn normal(block: [u32; 4], out: &mut [Self]);
    /// One group of truncated normal values, drawing words one at a time.
    fn truncated(words: &mut Words, out: &mut [Self]);
}

/// One word at a time from a generator (TensorFlow's `SingleSampleAdapter`).
pub(crate) struct Words {
    gen: Philox,
    block: [u32; 4],
    used: usize,
}

impl Words {
    fn new(gen: Philox) -> Words {
        Words { gen, block: [0; 4], used: 4 }
    }
    fn next(&mut self) -> u32 {
        if self.used == 4 {
            self.block = self.gen.next_block();
            self.used = 0;
        }
        self.used += 1;
        self.block[self.used - 1]
    }
}

/// Stores `v` at `out[*i]` when it is within two standard deviations; true when the
/// group is full.
fn keep<T: Copy>(v: T, inside: bool, out: &mut [T], i: &mut usize) -> bool {
    if inside {
        out[*i] = v;
        *i += 1;
    }
    *i == out.len()
}

impl Sample for f32 {
    const GROUP: usize = 4;
    fn uniform(block: [u32; 4], out: &mut [f32]) {
        for (o, &w) in out.iter_mut().zip(&block) {
            *o = u32_to_f32(w);
        }
    }
    fn normal(block: [u32; 4], out: &mut [f32]) {
        let v = [box_muller_f32(block[0], block[1]), box_muller_f32(block[2], block[3])];
        for (o, x) in out.iter_mut().zip(v.iter().flatten()) {
            *o = *x;
        }
    }
    fn truncated(words: &mut Words, out: &mut [f32]) {
        let mut i = 0;
        loop {
            let (x0, x1) = (words.next(), words.next());
            for f in box_muller_f32(x0, x1) {
                if keep(f, f.abs() < 2.0, out, &mut i) {
                    return;
                }
            }
        }
    }
}

impl Sample for f64 {
    const GROUP: usize = 2;
    fn uniform(block: [u32; 4], out: &mut [f64]) {
        let v = [u64_to_f64(block[0], block[1]), u64_to_f64(block[2], block[3])];
        out.copy_from_slice(&v[..out.len()]);
    }
    fn normal(block: [u32; 4], out: &mut [f64]) {
        out.copy_from_slice(&box_muller_f64(block)[..out.len()]);
    }
    fn truncated(words: &mut Words, out: &mut [f64]) {
        let mut i = 0;
        loop {
            let x = [words.next(), words.next(), words.next(), words.next()];
            for f in box_muller_f64(x) {
                if keep(f, f.abs() < 2.0, out, &mut i) {
                    return;
                }
            }
        }
    }
}

/// Fills `out` from `gen` as TensorFlow's CPU `FillPhiloxRandom`: group `g` (of
/// `T::GROUP` values; the last may be partial) is drawn from the block `g` along the
/// stream for uniform and normal values, and from `g * GROUP * 256 / 4` blocks along
/// for truncated normals, whose rejection uses a varying number of words.
pub(crate) fn fill<T: Sample>(gen: Philox, dist: Dist, out: &mut [T]) {
    let mut g = gen;
    for (index, group) in out.chunks_mut(T::GROUP).enumerate() {
        match dist {
            Dist::Uniform => T::uniform(g.next_block(), group),
            Dist::Normal => T::normal(g.next_block(), group),
            Dist::Truncated => {
                let mut start = gen;
                start.skip(index as u64 * (T::GROUP as u64 * RESERVED_PER_OUTPUT / 4));
                T::truncated(&mut Words::new(start), group);
            }
        }
    }
}
