//! Philox4x32-10, the counter-based generator behind TensorFlow's random ops
//! (`tensorflow/core/lib/random/philox_random.h`): a 128-bit counter and a 64-bit key,
//! ten rounds per call, each call giving four `u32`s and advancing the counter by one.

/// Round multipliers and key increments (Salmon et al., "Parallel random numbers: as easy
/// as 1, 2, 3"), the constants TensorFlow's `PhiloxRandom` uses.
const MUL_A: u32 = 0xD251_1F53;
const MUL_B: u32 = 0xCD9E_8D57;
const KEY_A: u32 = 0x9E37_79B9;
const KEY_B: u32 = 0xBB67_AE85;

/// The generator's state: the counter's four 32-bit words (word 0 lowest) and the key's two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Philox {
    counter: [u32; 4],
    key: [u32; 2],
}

fn lo(x: u64) -> u32 {
    x as u32
}

fn hi(x: u64) -> u32 {
    (x >> 32) as u32
}

impl Philox {
    /// From a counter and a key as words, TensorFlow's `PhiloxRandom(counter, key)`.
    pub(crate) fn from_words(counter: [u32; 4], key: [u32; 2]) -> Philox {
        Philox { counter, key }
    }

    /// From the `uint64` key and counter tensors of the V2 stateless ops (TensorFlow's
    /// `GetPhiloxRandomFromCounterKeyMem`): each `u64` split low word first.
    pub(crate) fn from_key_counter(key: u64, counter: [u64; 2]) -> Philox {
        Philox { counter: [lo(counter[0]), hi(counter[0]), lo(counter[1]), hi(counter[1])], key: [lo(key), hi(key)] }
    }

    /// The generator of the stateful ops seeded with (`seed`, `seed2`), TensorFlow's
    /// `PhiloxRandom(seed_lo, seed_hi)`: `seed` is the key, `seed2` the counter's high half.
    pub(crate) fn from_seeds(seed: u64, seed2: u64) -> Philox {
        Philox { counter: [0, 0, lo(seed2), hi(seed2)], key: [lo(seed), hi(seed)] }
    }

    /// The key as one `u64` (low word first), as `StatelessRandomGetKeyCounter` writes it.
    pub(crate) fn key_u64(&self) -> u64 {
        u64::from(self.key[0]) | (u64::from(self.key[1]) << 32)
    }

    /// The counter as two `u64`s, as `StatelessRandomGetKeyCounter` writes it.
    pub(crate) fn counter_u64(&self) -> [u64; 2] {
        [
            u64::from(self.counter[0]) | (u64::from(self.counter[1]) << 32),
            u64::from(self.counter[2]) | (u64::from(self.counter[3]) << 32),
        ]
    }

    /// Advances the counter by `count` outputs (a 128-bit addition), as `PhiloxRandom::Skip`.
    pub(crate) fn skip(&mut self, count: u64) {
        let low = u128::from(self.counter[0]) | (u128::from(self.counter[1]) << 32);
        let high = u128::from(self.counter[2]) | (u128::from(self.counter[3]) << 32);
        let sum = ((high << 64) | low).wrapping_add(u128::from(count));
        self.counter = [sum as u32, (sum >> 32) as u32, (sum >> 64) as u32, (sum >> 96) as u32];
    }

    /// The next four words: ten rounds on a copy of the counter, then the counter
    /// advances by one.
    pub(crate) fn next_block(&mut self) -> [u32; 4] {
        let mut c = self.counter;
        let mut k = self.key;
        for round in 0..10 {
            c = single_round(c, k);
            if round < 9 {
                k = [k[0].wrapping_add(KEY_A), k[1].wrapping_add(KEY_B)];
            }
        }
        self.skip(1);
        c
    }
}

/// One Philox round: two 32×32→64 products mixed with the other words and the key.
fn single_round(c: [u32; 4], k: [u32; 2]) -> [u32; 4] {
    let p0 = u64::from(MUL_A) * u64::from(c[0]);
    let p1 = u64::from(MUL_B) * u64::from(c[2]);
    [hi(p1) ^ c[1] ^ k[0], lo(p1), hi(p0) ^ c[3] ^ k[1], lo(p0)]
}

/// The key and counter of the stateless ops for a seed pair, as TensorFlow's
/// `GenerateKey`: the seeds (sign-extended to 64 bits) form a counter that one Philox call
/// under a fixed key scrambles; its output's first two words become the key, its last two
/// the counter's high half.
pub(crate) fn stateless_generator(seed0: u64, seed1: u64) -> Philox {
    let mix = Philox::from_words([lo(seed0), hi(seed0), lo(seed1), hi(seed1)], [0x3ec8_f720, 0x0246_1e29]).next_block();
    Philox::from_words([0, 0, mix[2], mix[3]], [mix[0], mix[1]])
}
