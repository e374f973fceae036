//! Training: symbolic gradients, optimizers, the global step, moving averages, the
//! checkpoint saver, and TensorBoard event files and summaries ([`summary`]).

mod adam;
mod cond_contexts;
mod global_step;
mod grad_loop_state;
mod gradient_descent;
mod gradients;
mod inside_loops;
mod momentum;
mod moving_averages;
mod optimizer;
mod saver;
pub mod summary;
mod while_grad;
mod while_loops;

pub use adam::AdamOptimizer;
pub use global_step::{get_global_step, get_or_create_global_step, global_step};
pub use gradient_descent::GradientDescentOptimizer;
pub use gradients::gradients;
pub use momentum::MomentumOptimizer;
pub use moving_averages::{ExponentialMovingAverage, MOVING_AVERAGE_VARIABLES};
pub use optimizer::Optimizer;
pub use saver::{
    add_saver_ops, init_from_checkpoint, is_optimizer_variable, RestoreHints, Saver,
    DEFAULT_KEEP_CHECKPOINT_EVERY_N_HOURS,
};
