//! The `tensorgraph demo` command end to end: iris reaches the expected accuracy, the
//! checkpoint (with its `.meta`), the frozen `model.pb` and the forecast files are written,
//! `run`, `freeze` and `inspect` work on them as README shows, and malformed CSVs are clear
//! errors.

mod common;
use common::cli::{ok, s};
use common::{assert_close, flat_f64};
use serde_json::Value;
use std::process::{Command, Stdio};
use tensorgraph::io::graph_def::read_graph_def;

fn demo(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tensorgraph")).arg("demo").args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn iris_demo_trains_saves_restores_and_forecasts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("model");
    let (ok, stdout, stderr) = demo(&["--out", out.to_str().unwrap()]);
    assert!(ok, "{stdout}\n{stderr}");
    let acc: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("test accuracy: "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no accuracy line in {stdout}"));
    assert!(acc >= 0.93, "accuracy {acc}");
    assert!(stdout.contains("forecast() called twice") && stdout.contains("(identical)"), "{stdout}");
    let mut files: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "checkpoint",
            "forecast.json",
            "inputs.npy",
            "logs",
            "model.ckpt.data-00000-of-00001",
            "model.ckpt.index",
            "model.ckpt.meta",
            "model.json",
            "model.pb"
        ]
    );
    // the TensorBoard log: the graph, then per step the merged summaries and the accuracy
    let logs = tensorgraph::train::summary::event_files(out.join("logs")).unwrap();
    assert_eq!(logs.len(), 1);
    let events: Vec<_> =
        tensorgraph::train::summary::EventFileReader::open(&logs[0]).unwrap().map(|e| e.unwrap()).collect();
    use tensorgraph::format::proto::EventKind;
    let tags = |tag: &str| {
        events
            .iter()
            .filter_map(|e| match &e.what {
                Some(EventKind::Summary(s)) => s.value.iter().find(|v| v.tag == tag).map(|_| e.step),
                _ => None,
            })
            .collect::<Vec<i64>>()
    };
    assert_eq!(tags("training_loss"), (0..400).collect::<Vec<i64>>());
    assert_eq!(tags("held_out_accuracy"), (0..400).collect::<Vec<i64>>());
    assert_eq!(tags("weights/layer1/weights").len(), 400);
    assert!(matches!(events[1].what, Some(EventKind::GraphDef(_))));
    assert!(stdout.contains(&format!(
        "saved checkpoint {0}/model.ckpt with its meta graph {0}/model.ckpt.meta\nfroze probs into {0}/model.pb (22 nodes)\n",
        out.display()
    )));
    assert!(stdout.ends_with(&format!(
        "  tensorgraph run {0}/model.ckpt --feed x:0={0}/inputs.npy --fetch probs:0\n  tensorgraph run {0}/model.pb --feed x:0={0}/inputs.npy --fetch probs:0\n",
        out.display()
    )));
    let names: Vec<String> = tensorgraph::format::checkpoint::CheckpointReader::open(out.join("model.ckpt"))
        .unwrap()
        .list()
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert_eq!(names.len(), 6 * 3 + 2, "6 variables, their Adam slots, beta1_power and beta2_power: {names:?}");
    assert!(names.contains(&"layer1/weights/Adam_1".to_string()));
}

/// `tensorgraph run ... --json`'s values of its first fetch.
fn run_values(args: &[String]) -> Vec<f64> {
    let o = ok(args);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    flat_f64(&v[0]["values"])
}

#[test]
fn run_and_freeze_work_on_what_the_demo_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo-model");
    let (ok_, stdout, stderr) = demo(&["--out", out.to_str().unwrap(), "--steps", "100"]);
    assert!(ok_, "{stdout}\n{stderr}");
    let forecast: Value = serde_json::from_str(&std::fs::read_to_string(out.join("forecast.json")).unwrap()).unwrap();
    let want = flat_f64(&forecast["probabilities"]);
    assert_eq!(want.len(), 15);
    let feed = format!("x:0={}", s(&out.join("inputs.npy")));
    // README's commands: the checkpoint prefix (its .meta beside it), the directory (its
    // latest checkpoint), the .meta with --ckpt, and the frozen model.pb
    let meta = s(&out.join("model.ckpt.meta"));
    for model in [
        vec![s(&out.join("model.ckpt"))],
        vec![s(&out)],
        vec![meta.clone(), "--ckpt".into(), s(&out)],
        vec![s(&out.join("model.pb"))],
    ] {
        let mut args = vec!["run".to_string()];
        args.extend(model.iter().cloned());
        args.extend(["--feed".into(), feed.clone(), "--fetch".into(), "probs:0".into(), "--json".into()]);
        assert_close(&format!("run {model:?}"), &run_values(&args), &want);
    }
    // freeze without --meta uses the checkpoint's .meta, and gives the demo's model.pb
    let frozen = out.join("frozen.pb");
    let o = ok(&["freeze", "--ckpt", &s(&out), "--outputs", "probs", "-o", &s(&frozen)]);
    assert_eq!(o.stderr, format!("froze {meta} into {}: 22 nodes (6 Const)\n", s(&frozen)));
    assert_eq!(read_graph_def(&frozen).unwrap(), read_graph_def(out.join("model.pb")).unwrap());
    let args: Vec<String> =
        ["run", &s(&frozen), "--feed", &feed, "--fetch", "probs:0", "--json"].map(String::from).to_vec();
    assert_close("frozen.pb", &run_values(&args), &want);
    // inspect names what each file is
    let o = ok(&["inspect", &meta]);
    assert!(o.stdout.starts_with(&format!("{meta}: MetaGraphDef, ")), "{}", o.stdout);
    assert!(o.stdout.contains("  SaveV2 ") && o.stdout.contains("  RestoreV2 "), "{}", o.stdout);
    let o = ok(&["inspect", &s(&out.join("model.pb"))]);
    assert!(o.stdout.starts_with(&format!("{}: GraphDef, 22 nodes\n", s(&out.join("model.pb")))), "{}", o.stdout);
    // model.json is the ForecasterSpec
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(out.join("model.json")).unwrap()).unwrap();
    assert_eq!(
        (&spec["features"], &spec["hidden"], &spec["classes"]),
        (&4.into(), &serde_json::json!([16, 16]), &3.into())
    );
    assert_eq!(spec["class_names"], serde_json::json!(["setosa", "versicolor", "virginica"]));
}

#[test]
fn user_csv_trains_and_bad_csvs_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    // two well separated classes, 40 rows, a header, class names as strings
    let mut csv = String::from("a,b,label\n");
    for i in 0..40 {
        let c = i % 2;
        csv.push_str(&format!(
            "{},{},{}\n",
            c as f32 * 4.0 + (i % 5) as f32 * 0.1,
            1.0 - c as f32,
            if c == 0 { "no" } else { "yes" }
        ));
    }
    let good = dir.path().join("good.csv");
    std::fs::write(&good, &csv).unwrap();
    let (ok, stdout, stderr) =
        demo(&["--data", good.to_str().unwrap(), "--out", dir.path().join("m").to_str().unwrap(), "--steps", "50"]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("40 rows, 2 features, 2 classes"), "{stdout}");

    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "a,b,label\n1,2,0\n3,x,1\n").unwrap();
    let (ok, _, stderr) = demo(&["--data", bad.to_str().unwrap(), "--out", dir.path().join("m2").to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("line 3, column 2: 'x' is not a number"), "{stderr}");

    std::fs::write(&bad, "1,2,0\n3,4,1\n5,1\n").unwrap();
    let (ok, _, stderr) = demo(&["--data", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("line 3: expected 3 columns like the lines before, got 2"), "{stderr}");

    let (ok, _, stderr) = demo(&["--data", dir.path().join("missing.csv").to_str().unwrap()]);
    assert!(!ok);
    assert!(stderr.contains("cannot read"), "{stderr}");

    // a thread count out of range is rejected before the data is read
    let missing = dir.path().join("missing.csv");
    let (ok, _, stderr) = demo(&["--data", missing.to_str().unwrap(), "--threads", "100000"]);
    assert!(!ok);
    assert!(stderr.contains("InvalidArgument: 100000 threads is more than"), "{stderr}");
    assert!(!stderr.contains("cannot read"), "{stderr}");
}

/// `demo | head -1`: a closed pipe ends the printing, not the demo, which still writes
/// every file (before, the first line after the pipe closed panicked with exit 101).
#[test]
fn a_closed_stdout_does_not_stop_the_demo() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("model");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tensorgraph"))
        .args(["demo", "--steps", "20", "--out", out.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let done = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{:?}: {stderr}", done.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    for file in ["model.ckpt.index", "model.pb", "forecast.json"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
}
