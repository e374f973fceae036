//! A multi-layer perceptron classifier with relu hidden layers, softmax output,
//! mean softmax cross-entropy loss and an Adam train op — in TensorFlow 1.x terms:
//! `x = tf.placeholder(tf.float32, [None, F], name="x")`, one-hot `y` `[None, C]`,
//! per layer `with tf.variable_scope("layerN"): get_variable("weights"), get_variable("biases")`
//! and `relu(matmul(h, w) + b)`, output scope `output`, `probs = tf.nn.softmax(logits, name="probs")`.

use crate::error::Result;
use crate::graph::{Graph, Operation, Output, Reuse};
use crate::init;
use crate::ops;
use crate::tensor::DType;
use crate::train::{AdamOptimizer, Optimizer};

/// The shape and training settings of an [`Mlp`].
#[derive(Debug, Clone)]
pub struct MlpConfig {
    /// Number of input features F.
    pub features: usize,
    /// Width of each hidden layer (scopes `layer1`, `layer2`, ...).
    pub hidden: Vec<usize>,
    /// Number of classes C.
    pub classes: usize,
    /// Adam's learning rate; `None` builds the inference graph only (no loss, no optimizer).
    pub learning_rate: Option<f64>,
    /// Op seed of the Glorot-uniform weight initializers (layer i uses `seed + i`).
    pub seed: Option<u64>,
}

/// The tensors and ops of a built MLP.
#[derive(Debug, Clone)]
pub struct Mlp {
    /// Input rows, float32 `[None, F]` (`x:0`).
    pub x: Output,
    /// One-hot labels, float32 `[None, C]` (`y:0`); present when a loss was built.
    pub y: Option<Output>,
    /// Logits, float32 `[None, C]`.
    pub logits: Output,
    /// Class probabilities, float32 `[None, C]` (`probs:0`).
    pub probs: Output,
    /// Mean cross-entropy, float32 scalar; present when training was built.
    pub loss: Option<Output>,
    /// The Adam train op (`train`); present when training was built.
    pub train: Option<Operation>,
    /// `init`: initializes every global variable.
    pub init: Operation,
}

impl Mlp {
    /// Builds the model into `graph`. Errors: as the ops it adds (for example
    /// `AlreadyExists` when `graph` already holds a model with these variable names).
    pub fn build(graph: &Graph, cfg: &MlpConfig) -> Result<Mlp> {
        let root = graph.scope();
        let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(cfg.features)])?;
        let mut h = x.clone();
        let mut width = cfg.features;
        let n = cfg.hidden.len();
        for i in 0..=n {
            let (name, units) =
                if i < n { (format!("layer{}", i + 1), cfg.hidden[i]) } else { ("output".into(), cfg.classes) };
            let seed = cfg.seed.map(|s| s + i as u64);
            h = root.variable_scope(&name, Reuse::No, |s| {
                let w =
                    s.get_variable("weights", [width, units], DType::Float, init::Initializer::GlorotUniform { seed })?;
                let b = s.get_variable("biases", [units], DType::Float, init::zeros())?;
                let z = ops::add(s, &ops::matmul(s, &h, &w)?, &b)?;
                if i < n {
                    ops::relu(s, &z)
                } else {
                    Ok(z)
                }
            })?;
            width = units;
        }
        let logits = h;
        let probs = ops::softmax(&root.named("probs"), &logits)?;
        let (y, loss, train) = match cfg.learning_rate {
            None => (None, None, None),
            Some(lr) => {
                let y = ops::placeholder(&root.named("y"), DType::Float, [None, Some(cfg.classes)])?;
                let xent = ops::softmax_cross_entropy_with_logits(&root, &y, &logits)?;
                let loss = ops::reduce_mean(&root.named("loss"), &xent, None, false)?;
                let train = AdamOptimizer::new(lr).minimize_with(&loss, None, None, Some("train"))?;
                (Some(y), Some(loss), Some(train))
            }
        };
        let init = root.global_variables_initializer()?;
        Ok(Mlp { x, y, logits, probs, loss, train, init })
    }
}
