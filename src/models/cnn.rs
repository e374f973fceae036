//! A small convolutional classifier with batch normalization, as a TensorFlow 1.x user
//! writes it: `x = tf.placeholder(tf.float32, [None, H, W, C], name="x")`, a
//! `training = tf.placeholder_with_default(False, [], name="training")` flag, per block
//! `conv{i}/kernel` (3x3, SAME, no bias), `tf.layers.batch_normalization(training=training,
//! name="bn{i}")`, relu and 2x2 max pooling, then a dense `output` layer and
//! `probs = tf.nn.softmax(logits, name="probs")`; trained by Adam on the mean softmax
//! cross-entropy with the `update_ops` run in the same step.

use super::layers::{batch_normalization, BatchNormalization};
use crate::error::{Error, Result};
use crate::graph::collections::UPDATE_OPS;
use crate::graph::{Graph, Operation, Output, Reuse};
use crate::init::Initializer;
use crate::ops;
use crate::tensor::{DType, Shape, Tensor};
use crate::train::{AdamOptimizer, Optimizer};

/// The shape and training settings of a [`Cnn`].
#[derive(Debug, Clone)]
pub struct CnnConfig {
    /// Input height H, width W and channels C (`x` is `[None, H, W, C]`).
    pub input: [usize; 3],
    /// Filters of each convolution block (scopes `conv1`/`bn1`, `conv2`/`bn2`, ...); each
    /// block halves H and W (rounding up).
    pub filters: Vec<usize>,
    /// Number of classes.
    pub classes: usize,
    /// Adam's learning rate; `None` builds the inference graph only (no loss, no optimizer).
    pub learning_rate: Option<f64>,
    /// Batch normalization's moving-average momentum and epsilon.
    pub batch_norm: BatchNormalization,
    /// Op seed of the Glorot-uniform initializers (layer i uses `seed + i`).
    pub seed: Option<u64>,
}

/// The tensors and ops of a built CNN.
#[derive(Debug, Clone)]
pub struct Cnn {
    /// Input images, float32 `[None, H, W, C]` (`x:0`).
    pub x: Output,
    /// The batch normalization mode, bool scalar (`training:0`), false unless fed.
    pub training: Output,
    /// One-hot labels, float32 `[None, classes]` (`y:0`); present when a loss was built.
    pub y: Option<Output>,
    /// Class probabilities, float32 `[None, classes]` (`probs:0`).
    pub probs: Output,
    /// Mean cross-entropy, float32 scalar (`loss:0`); present when training was built.
    pub loss: Option<Output>,
    /// `train`: Adam's update and the batch normalization updates; run it with `training`
    /// fed true. Present when training was built.
    pub train: Option<Operation>,
    /// `init`: initializes every global variable.
    pub init: Operation,
}

impl Cnn {
    /// Builds the model into `graph`. Errors: `InvalidArgument` for an empty input shape or
    /// no filters; as the ops it adds (`AlreadyExists` when `graph` already holds a model
    /// with these variable names).
    pub fn build(graph: &Graph, cfg: &CnnConfig) -> Result<Cnn> {
        let [h, w, c] = cfg.input;
        if h == 0 || w == 0 || c == 0 || cfg.filters.is_empty() || cfg.classes == 0 {
            return Err(Error::invalid_argument(format!(
                "Cnn: input {:?}, filters {:?} and classes {} must all be non-empty",
                cfg.input, cfg.filters, cfg.classes
            )));
        }
        let root = graph.scope();
        let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(h), Some(w), Some(c)])?;
        // TensorFlow's names: the default value `training/input`, then the op `training`
        let (training_op, training_scope) = root.op_scope("training");
        let no = ops::constant(&training_scope.named("input"), Tensor::scalar(false))?;
        let training = ops::placeholder_with_default(&training_op, &no, Shape::scalar())?;
        let glorot = |i: usize| Initializer::GlorotUniform { seed: cfg.seed.map(|s| s + i as u64) };
        let (mut y, mut hw, mut channels) = (x.clone(), (h, w), c);
        for (i, &f) in cfg.filters.iter().enumerate() {
            let k = root.variable_scope(&format!("conv{}", i + 1), Reuse::No, |s| {
                s.get_variable("kernel", [3, 3, channels, f], DType::Float, glorot(i))
            })?;
            let conv = ops::conv2d(&root.name_scope(&format!("conv{}/", i + 1)), &y, k.value(), &[1, 1, 1, 1], "SAME")?;
            let bn = batch_normalization(&root, &conv, &training, &format!("bn{}", i + 1), cfg.batch_norm)?;
            let relu = ops::relu(&root, &bn)?;
            y = ops::max_pool(&root, &relu, &[1, 2, 2, 1], &[1, 2, 2, 1], "SAME")?;
            (hw, channels) = ((hw.0.div_ceil(2), hw.1.div_ceil(2)), f);
        }
        let flat = hw.0 * hw.1 * channels;
        let flat_y = ops::reshape_to(&root.named("flatten"), &y, &[-1, flat as i64])?;
        let logits = root.variable_scope("output", Reuse::No, |s| {
            let wt = s.get_variable("weights", [flat, cfg.classes], DType::Float, glorot(cfg.filters.len()))?;
            let b = s.get_variable("biases", [cfg.classes], DType::Float, Initializer::Zeros)?;
            ops::add(s, &ops::matmul(s, &flat_y, wt.value())?, b.value())
        })?;
        let probs = ops::softmax(&root.named("probs"), &logits)?;
        let (labels, loss, train) = match cfg.learning_rate {
            None => (None, None, None),
            Some(lr) => {
                let labels = ops::placeholder(&root.named("y"), DType::Float, [None, Some(cfg.classes)])?;
                let xent = ops::softmax_cross_entropy_with_logits(&root, &labels, &logits)?;
                let loss = ops::reduce_mean(&root.named("loss"), &xent, None, false)?;
                let minimize = AdamOptimizer::new(lr).minimize_with(&loss, None, None, Some("Adam_minimize"))?;
                let updates: Vec<Operation> =
                    graph.get_collection(UPDATE_OPS).iter().filter_map(|v| v.as_operation().cloned()).collect();
                let mut all: Vec<&Operation> = updates.iter().collect();
                all.push(&minimize);
                let train = ops::group(&root.named("train"), &all)?;
                (Some(labels), Some(loss), Some(train))
            }
        };
        let init = root.global_variables_initializer()?;
        Ok(Cnn { x, training, y: labels, probs, loss, train, init })
    }
}
