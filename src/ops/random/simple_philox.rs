//! TensorFlow's `SimplePhilox` (`tensorflow/core/lib/random/simple_philox.h`): Philox words
//! one at a time, as the sampling kernels (Multinomial, RandomShuffle, the candidate
//! samplers) draw them, with its integer and double helpers.

use super::distributions::u64_to_f64;
use super::philox::Philox;

/// One Philox word at a time (TensorFlow's `SingleSampleAdapter` under `SimplePhilox`): a
/// block of four is drawn when the last is used up.
pub(crate) struct SimplePhilox {
    gen: Philox,
    block: [u32; 4],
    used: usize,
}

impl SimplePhilox {
    /// Draws from `gen` onwards.
    pub(crate) fn new(gen: Philox) -> SimplePhilox {
        SimplePhilox { gen, block: [0; 4], used: 4 }
    }

    /// The next word (`Rand32`).
    pub(crate) fn rand32(&mut self) -> u32 {
        if self.used == 4 {
            self.block = self.gen.next_block();
            self.used = 0;
        }
        self.used += 1;
        self.block[self.used - 1]
    }

    /// Two words, the first the low half (`Rand64`).
    pub(crate) fn rand64(&mut self) -> u64 {
        let lo = self.rand32();
        let hi = self.rand32();
        u64::from(lo) | (u64::from(hi) << 32)
    }

    /// A double in `[0, 1)` from two words (`RandDouble`).
    pub(crate) fn rand_double(&mut self) -> f64 {
        let x0 = self.rand32();
        let x1 = self.rand32();
        u64_to_f64(x0, x1)
    }

    /// An integer uniform in `[0, n)` by rejection (`Uniform64`, TensorFlow's
    /// `ExactUniformInt`): a power of two masks, other `n` reject the words below
    /// `(2^64 - 1) % n + 1`; `n == 0` draws one value and gives 0.
    pub(crate) fn uniform64(&mut self, n: u64) -> u64 {
        if n == 0 {
            self.rand64();
            return 0;
        }
        if n.is_power_of_two() {
            return self.rand64() & (n - 1);
        }
        let rem = (u64::MAX % n) + 1;
        loop {
            let r = self.rand64();
            if r >= rem {
                return r % n;
            }
        }
    }
}
