//! The `tensorgraph demo` command end to end: iris reaches the expected accuracy, the
//! checkpoint and forecast files are written, and malformed CSVs are clear errors.

use std::process::Command;

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
    for f in ["model.ckpt.index", "model.ckpt.data-00000-of-00001", "checkpoint", "model.json", "forecast.json"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let names: Vec<String> = tensorgraph::format::checkpoint::CheckpointReader::open(out.join("model.ckpt"))
        .unwrap()
        .list()
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert_eq!(names.len(), 6 * 3 + 2, "6 variables, their Adam slots, beta1_power and beta2_power: {names:?}");
    assert!(names.contains(&"layer1/weights/Adam_1".to_string()));
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
}
