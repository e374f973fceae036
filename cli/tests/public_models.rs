//! `tensorgraph run` on public test files from TensorFlow's repositories
//! (`tests/data/public`, see its README.md), to TensorFlow 2.21's values
//! (`scripts/gen_public_models.py`).

mod common;
use common::cli::{ok, s, tg};
use npyz::WriterBuilder;
use std::path::{Path, PathBuf};

fn public(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/public").join(path)
}

/// Writes a .npy file of `shape` and float32 or int32 `values`.
fn npy<T: npyz::Serialize + npyz::AutoSerialize + Copy>(path: &Path, shape: &[u64], values: &[T]) {
    let mut out = Vec::new();
    let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(&mut out).begin_nd().unwrap();
    w.extend(values.iter().copied()).unwrap();
    w.finish().unwrap();
    std::fs::write(path, out).unwrap();
}

#[test]
fn multiplication_pb_runs_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.npy"), dir.path().join("b.npy"));
    npy(&a, &[3], &[1i32, 2, 3]);
    npy(&b, &[], &[2i32]);
    let pb = public("tensorflow-rust/tensorflow-sys/examples/assets/multiplication.pb");
    let o =
        ok(&["run", &s(&pb), "--feed", &format!("a={}", s(&a)), "--feed", &format!("b={}", s(&b)), "--fetch", "c:0"]);
    assert_eq!(o.stdout, "c:0  float32  [3]\n  [2.0, 4.0, 6.0]\n");
}

#[test]
fn tf2_saved_model_signature_runs_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npy");
    npy(&x, &[1], &[3f32]);
    let sm = public("serving/saved_model_half_plus_two_tf2_cpu/00000123");
    let o = ok(&["run", &s(&sm), "--signature", "serving_default", "--input", &format!("x={}", s(&x))]);
    assert_eq!(o.stdout, "y (StatefulPartitionedCall_5:0)  float32  [1]\n  [3.5]\n");
    let o = ok(&["run", &s(&sm), "--signature", "regress_x2_to_y3", "--input", &format!("inputs={}", s(&x))]);
    assert_eq!(o.stdout, "outputs (StatefulPartitionedCall_2:0)  float32  [1]\n  [4.5]\n");
}

/// The 8 points of y = 0.1 x + 0.3 the regression tests train on, and w = 0.7, b = 0.
fn regression_feeds(dir: &Path) -> Vec<String> {
    let x: Vec<f32> = (0..8).map(|i| (-1.0 + 3.0 * i as f64 / 7.0) as f32).collect();
    let y: Vec<f32> = x.iter().map(|&v| (0.1 * v as f64 + 0.3) as f32).collect();
    let mut args = Vec::new();
    for (name, shape, values) in [("x", 8, x), ("y", 8, y), ("w", 1, vec![0.7f32]), ("b", 1, vec![0.0f32])] {
        let p = dir.join(format!("{name}.npy"));
        npy(&p, &[shape], &values);
        args.extend(["--feed".to_string(), format!("{name}={}", s(&p))]);
    }
    args
}

/// tensorflow/rust's regression training graphs (TF 0.x's `Variable`, `Rank`,
/// `DynamicStitch` and `Div` in reduce_mean's gradient; the second with a Saver) as a user
/// meets them on the command line: `inspect` lists them (x and y of any shape: `shape {}`
/// at producer 0, no shape at producer 26), and `run` with the variables fed gives
/// TensorFlow 2.21's loss and gradients (`scripts/gen_public_models.py`, `regression_cli`:
/// Mean = 0.34714285, dw = 1.1571427583694458, db = -5.960464477539063e-08); unfed, the
/// error is TensorFlow's "Attempting to use uninitialized value w" with advice a command
/// line can follow.
#[test]
fn regression_graphs_inspect_and_run_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let feeds = regression_feeds(dir.path());
    for (file, producer, variable_reader) in [("regression", 0, "mul"), ("regression_checkpoint", 26, "w/read")] {
        let pb = s(&public(&format!("tensorflow-rust/examples/{file}/model.pb")));
        let o = ok(&["inspect", &pb]);
        let rows: Vec<Vec<&str>> = o.stdout.lines().map(|l| l.split_whitespace().collect()).collect();
        // TF 0.x's op types (checked in the producer-0 graph)
        for row in
            [["Variable", "2"], ["DynamicStitch", "1"], ["Rank", "4"], ["Div", "3"]].iter().filter(|_| producer == 0)
        {
            assert!(rows.iter().any(|r| r[..] == row[..]), "{file}: {row:?} in\n{}", o.stdout);
        }
        // producer 0 writes `shape {}` (any shape up to producer 21); producer 26's x and y
        // have no static shape at all
        let note = |n: &str| match producer {
            0 => format!("  {n}  float32  <unknown>  (shape {{}} in a GraphDef of producer 0 <= 21: any shape)\n"),
            _ => format!("  {n}  float32  <unknown>\n"),
        };
        for line in [format!("{pb}: GraphDef, "), note("x"), note("y")] {
            assert!(o.stdout.contains(&line), "{file}: {line:?} in\n{}", o.stdout);
        }
        let mut args = vec!["run".to_string(), pb.clone(), "--json".to_string()];
        args.extend(feeds.iter().cloned());
        let fetches = ["Mean:0", "gradients/mul_grad/Reshape:0", "gradients/add_grad/Reshape_1:0"];
        for f in fetches {
            args.extend(["--fetch".to_string(), f.to_string()]);
        }
        let o = ok(&args);
        let got: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        let want = [(vec![], 0.347_142_85), (vec![1], 1.157_142_758_369_445_8), (vec![1], -5.960_464_477_539_063e-8)];
        for (i, (shape, value)) in want.iter().enumerate() {
            assert_eq!(got[i]["name"], fetches[i]);
            assert_eq!(got[i]["shape"], serde_json::json!(shape), "{file} {}", fetches[i]);
            let v = if shape.is_empty() { &got[i]["values"] } else { &got[i]["values"][0] };
            let v = v.as_f64().unwrap();
            assert!((v - value).abs() <= 1e-6 + 1e-5 * value.abs(), "{file} {}: {v}, TensorFlow {value}", fetches[i]);
        }
        // x and y only: TensorFlow's FailedPrecondition
        let o = tg(&["run", &pb, &feeds[0], &feeds[1], &feeds[2], &feeds[3], "--fetch", "Mean:0"]);
        assert_eq!(o.code, Some(1), "{}", o.stderr);
        assert_eq!(
            o.stderr,
            format!("error: running {pb}: FailedPrecondition: input 0 of '{variable_reader}': Attempting to use uninitialized value w. A GraphDef holds no variable values and each run is a new session: feed them (--feed w=FILE.npy), or run the model's .meta with --ckpt PREFIX, or a frozen graph\n")
        );
    }
}

/// regression_checkpoint's own `save/` ops (SaveV2) run from the command line with w and b
/// fed write a checkpoint that `inspect --values` reads back, as TensorFlow's
/// `sess.run('save/control_dependency', {w: ..., b: ..., 'save/Const:0': prefix})` does.
#[test]
fn regression_checkpoint_saves_through_its_own_saver_ops_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let feeds = regression_feeds(dir.path());
    let prefix = dir.path().join("model");
    let prefix_npy = dir.path().join("prefix.npy");
    tensorgraph::Tensor::strings(&[], vec![s(&prefix).into_bytes()]).unwrap().write_npy(&prefix_npy).unwrap();
    let pb = s(&public("tensorflow-rust/examples/regression_checkpoint/model.pb"));
    let o = ok(&[
        "run",
        &pb,
        &feeds[4],
        &feeds[5],
        &feeds[6],
        &feeds[7],
        "--feed",
        &format!("save/Const={}", s(&prefix_npy)),
        "--fetch",
        "save/control_dependency:0",
    ]);
    assert_eq!(o.stdout, format!("save/control_dependency:0  string  []\n  \"{}\"\n", s(&prefix)));
    let o = ok(&["inspect", &s(&prefix), "--values"]);
    assert_eq!(o.stdout, "b  float32    [1]\n    [0.0]\nw  float32    [1]\n    [0.7]\n");
}
