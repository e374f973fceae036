//! Training: symbolic gradients, optimizers and the checkpoint saver.

mod gradients;

pub use gradients::gradients;
