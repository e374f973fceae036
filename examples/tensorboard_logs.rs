//! Trains a small linear regression for a few steps and logs it for TensorBoard, as TensorFlow
//! 1.x's first tutorial does with `tf.summary.FileWriter(logdir, sess.graph)`: the graph,
//! the loss as a scalar, the weights as a histogram and an image, all from summary ops in
//! the graph merged by `merge_all` and written by `add_summary`.
//!
//! ```sh
//! cargo run --release --example tensorboard_logs -- LOGDIR [STEPS]
//! tensorgraph events LOGDIR
//! tensorboard --logdir LOGDIR
//! ```

use tensorgraph::train::summary::{self, FileWriter};
use tensorgraph::train::{GradientDescentOptimizer, Optimizer};
use tensorgraph::{init, ops, DType, Graph, Reuse, Session, Tensor};

fn main() -> tensorgraph::Result<()> {
    let mut args = std::env::args().skip(1);
    let logdir = args.next().unwrap_or_else(|| "logs/regression".to_string());
    let steps: i64 = match args.next() {
        None => 20,
        Some(s) => s.parse().map_err(|_| {
            tensorgraph::Error::invalid_argument(format!("STEPS must be a whole number of training steps, got {s:?}"))
        })?,
    };

    let graph = Graph::new();
    let root = graph.scope();
    let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(3)])?;
    let y = ops::placeholder(&root.named("y"), DType::Float, [None, Some(1)])?;
    let (pred, w) = root.variable_scope("linear", Reuse::No, |s| {
        let w = s.get_variable("weights", [3, 1], DType::Float, init::zeros())?;
        let b = s.get_variable("bias", [1], DType::Float, init::zeros())?;
        Ok((ops::add(s, &ops::matmul(s, &x, &w)?, &b)?, w))
    })?;
    let loss = ops::reduce_mean(&root, &ops::square(&root, &ops::sub(&root, &pred, &y)?)?, None, false)?;
    let train = GradientDescentOptimizer::new(0.1).minimize(&loss)?;

    // summary ops in the graph, collected in `summaries` and merged
    summary::scalar(&root, "loss", &loss)?;
    summary::histogram(&root, "weights", &w)?;
    // the weights as a 3x1 grey image: [batch, height, width, channels]
    let image = ops::reshape(&root, &w, &ops::constant(&root, Tensor::vector(vec![1i32, 3, 1, 1]))?)?;
    summary::image(&root, "weights_image", &image, 1)?;
    let merged = summary::merge_all(&graph)?.expect("three summaries");

    let sess = Session::new(&graph)?;
    sess.run_targets(&[&root.global_variables_initializer()?])?;
    let writer = FileWriter::with_graph(&logdir, &graph)?;
    // y = x0 + 2 x1 - x2 + 0.5
    let xs = Tensor::new(&[4, 3], vec![0f32, 0., 1., 1., 0., 0., 0., 1., 0., 1., 1., 1.])?;
    let ys = Tensor::new(&[4, 1], vec![-0.5f32, 1.5, 2.5, 2.5])?;
    for step in 0..steps {
        let feeds = [(&x, xs.clone()), (&y, ys.clone())];
        let out = sess.run(&feeds, &[&merged, &loss], &[&train])?;
        writer.add_summary_tensor(&out[0], step)?;
        println!("step {step}: loss {}", out[1].as_slice::<f32>()?[0]);
    }
    writer.close()?;
    println!("wrote {}", logdir);
    Ok(())
}
