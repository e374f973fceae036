//! Shared test helpers: finite-difference gradient checks, the TensorFlow fixtures and
//! their manifests. The CLI's tests (`cli/tests/common`) include this file too.
#![allow(dead_code)]

use tensorgraph::train::gradients;
use tensorgraph::{ops, DType, Graph, Output, Scope, Session, Tensor};

/// Deterministic pseudo-random values in [lo, hi).
pub fn values(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            lo + (hi - lo) * ((x >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

/// One gradient-check input: `shape` and deterministic values in [lo, hi).
pub fn one(shape: &[usize], seed: u64, lo: f64, hi: f64) -> (Vec<usize>, Vec<f64>) {
    (shape.to_vec(), values(shape.iter().product(), seed, lo, hi))
}

/// `y * w` for fixed pseudo-random weights `w` shaped like `y` (so a gradient check sees
/// distinct incoming gradients).
pub fn weighted(s: &Scope, y: &Output, shape: &[usize], seed: u64) -> Output {
    let w = Tensor::new(shape, values(shape.iter().product(), seed, -1.0, 1.0)).unwrap();
    ops::mul(s, y, &ops::constant(s, w).unwrap()).unwrap()
}

/// The seed004 graph: reference variables v1, v2, v3 (float32 [1], values 1, 2, 3),
/// `add = v1 + v2`, `add_1 = add + v3`.
pub fn seed004_graph() -> (Graph, Vec<tensorgraph::Variable>, Output, Output) {
    let g = Graph::new();
    let s = g.scope();
    let mut vars = Vec::new();
    for (name, v) in [("v1", 1.0f32), ("v2", 2.0), ("v3", 3.0)] {
        let c = ops::constant(&s, Tensor::new(&[1], vec![v]).unwrap()).unwrap();
        vars.push(s.variable(name, &c).unwrap());
    }
    let add = ops::add(&s, &vars[0], &vars[1]).unwrap();
    let add_1 = ops::add(&s, &add, &vars[2]).unwrap();
    (g, vars, add, add_1)
}

/// Checks the symbolic gradient of `sum(f(inputs))` against central finite differences
/// in float64. `inputs` are (shape, values); `f` builds the function from placeholders.
/// Panics with the op and element on a mismatch beyond `tol` (relative to max(1, |g|)).
pub fn check_gradients(inputs: &[(Vec<usize>, Vec<f64>)], tol: f64, f: impl Fn(&Scope, &[Output]) -> Output) {
    let g = Graph::new();
    let s = g.scope();
    let phs: Vec<Output> = inputs
        .iter()
        .enumerate()
        .map(|(i, (shape, _))| ops::placeholder(&s.named(&format!("x{i}")), DType::Double, shape.clone()).unwrap())
        .collect();
    let y = f(&s, &phs);
    let grads = gradients(std::slice::from_ref(&y), &phs, None).unwrap();
    let sess = Session::new(&g).unwrap();
    let feed = |vals: &[Vec<f64>]| -> Vec<(Output, Tensor)> {
        phs.iter()
            .zip(inputs)
            .zip(vals)
            .map(|((p, (sh, _)), v)| (p.clone(), Tensor::new(sh, v.clone()).unwrap()))
            .collect()
    };
    let base: Vec<Vec<f64>> = inputs.iter().map(|(_, v)| v.clone()).collect();
    let eval = |vals: &[Vec<f64>]| -> f64 {
        let fd = feed(vals);
        let fr: Vec<(&Output, Tensor)> = fd.iter().map(|(o, t)| (o, t.clone())).collect();
        sess.run(&fr, &[&y], &[]).unwrap()[0].to_f64_vec().unwrap().iter().sum()
    };
    let fd = feed(&base);
    let fr: Vec<(&Output, Tensor)> = fd.iter().map(|(o, t)| (o, t.clone())).collect();
    for (i, gi) in grads.iter().enumerate() {
        let gi = gi.as_ref().unwrap_or_else(|| panic!("no gradient for input {i}"));
        let sym = sess.run(&fr, &[gi], &[]).unwrap()[0].to_f64_vec().unwrap();
        assert_eq!(sym.len(), base[i].len(), "gradient {i} has the wrong size");
        for j in 0..base[i].len() {
            let h = 1e-6 * base[i][j].abs().max(1.0);
            let mut up = base.clone();
            up[i][j] += h;
            let mut dn = base.clone();
            dn[i][j] -= h;
            let num = (eval(&up) - eval(&dn)) / (2.0 * h);
            let err = (num - sym[j]).abs() / sym[j].abs().max(1.0);
            assert!(err < tol, "input {i} element {j}: symbolic {} vs numeric {num} (y = {})", sym[j], y.name());
        }
    }
}

/// The TensorFlow 2.21 fixtures committed in `tests/fixtures/tf-2.21` (written by
/// `scripts/gen_fixtures.py`), found from either crate's tests; `$TENSORGRAPH_FIXTURES`
/// points the tests at a freshly regenerated set instead.
pub fn fixtures() -> std::path::PathBuf {
    match std::env::var_os("TENSORGRAPH_FIXTURES") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => repo_root().join("tests/fixtures/tf-2.21"),
    }
}

/// The repository root (the library crate's directory), from either crate's tests.
pub fn repo_root() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    match dir.parent() {
        Some(parent) if parent.join("cli/Cargo.toml").is_file() && dir.ends_with("cli") => parent.to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// A fixture's manifest.json.
pub fn manifest(fixture: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(fixtures().join(fixture).join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Flattens nested JSON arrays of numbers.
pub fn flat_f64(v: &serde_json::Value) -> Vec<f64> {
    match v {
        serde_json::Value::Array(a) => a.iter().flat_map(flat_f64).collect(),
        x => vec![x.as_f64().expect("a number")],
    }
}

/// A manifest tensor `{dtype: float32, shape, values}` as a float32 Tensor.
pub fn f32_tensor(v: &serde_json::Value) -> Tensor {
    assert_eq!(v["dtype"], "float32");
    let shape: Vec<usize> = v["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
    Tensor::new(&shape, flat_f64(&v["values"]).iter().map(|&x| x as f32).collect()).unwrap()
}

/// Asserts `got` is within TensorFlow's float32 tolerance (rtol 1e-5, atol 1e-6) of `want`.
pub fn assert_close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= 1e-6 + 1e-5 * w.abs(), "{what}[{i}]: got {g}, TensorFlow {w}");
    }
}

/// A TensorFlow-generated expectation file `tests/data/<dir>/<name>.json` (written by a
/// `scripts/gen_ops_*.py`: `outputs`, `errors`, `build_errors`).
pub fn tf_json(dir: &str, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(repo_root().join(format!("tests/data/{dir}/{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The graph TensorFlow built, `tests/data/<dir>/<name>.pbtxt`, imported (prefix `import/`).
pub fn tf_imported(dir: &str, name: &str) -> Graph {
    use tensorgraph::io::graph_def::{read_graph_def_any, ImportGraphDefOptions};
    let gd = read_graph_def_any(repo_root().join(format!("tests/data/{dir}/{name}.pbtxt"))).unwrap();
    let g = Graph::new();
    g.import_graph_def(&gd, &ImportGraphDefOptions::new()).unwrap();
    g
}

/// Imports `<dir>/<name>.pbtxt`, runs every output `<name>.json` lists (at least
/// `at_least`) and compares with TensorFlow's: shape, dtype, values (rel 1e-5 for floats,
/// 1e-3 for half; exact for integers, bools and strings; NaN where TensorFlow has NaN).
pub fn runs_to_tensorflows_values(dir: &str, name: &str, at_least: usize) {
    let exp = tf_json(dir, name);
    let outs = exp["outputs"].as_object().unwrap();
    assert!(outs.len() >= at_least, "the json lists every output");
    let g = tf_imported(dir, name);
    let sess = Session::new(&g).unwrap();
    for (key, want) in outs {
        let name = format!("import/{}", want["tensor"].as_str().unwrap());
        let t = g.tensor_by_name(&name).unwrap_or_else(|e| panic!("{key}: {e}"));
        let r = sess.run(&[], &[&t], &[]).unwrap_or_else(|e| panic!("{key} ({name}): {e}")).remove(0);
        let shape: Vec<usize> =
            want["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        assert_eq!(r.shape(), shape.as_slice(), "{key} ({name}): shape");
        assert_eq!(r.dtype().name(), want["dtype"].as_str().unwrap(), "{key}: dtype");
        if let tensorgraph::tensor::Storage::Str(v) = r.storage() {
            let want: Vec<&str> = want["values"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
            let got: Vec<String> = v.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect();
            assert_eq!(got, want, "{key} ({name})");
            continue;
        }
        let got = r.to_f64_vec().unwrap();
        let exact = !matches!(r.dtype(), DType::Float | DType::Double | DType::Half);
        for (i, (g, w)) in got.iter().zip(want["values"].as_array().unwrap()).enumerate() {
            match w.as_f64() {
                None => assert!(g.is_nan(), "{key}[{i}]: got {g}, TensorFlow NaN"),
                Some(w) if exact => assert_eq!(*g, w, "{key} ({name})[{i}]"),
                Some(w) => {
                    let tol = if r.dtype() == DType::Half { 1e-3 } else { 1e-5 };
                    assert!((g - w).abs() <= tol * w.abs().max(1.0), "{key} ({name})[{i}]: got {g}, TensorFlow {w}")
                }
            }
        }
    }
}

/// Runs every node `<dir>/<name>.json` lists under `errors` (at least `at_least`): each
/// fails with TensorFlow's status code and a message containing TensorFlow's first line,
/// as `expected(key, message)` gives it (the identity for most cases).
pub fn refuses_as_tensorflow(dir: &str, name: &str, at_least: usize, expected: fn(&str, &str) -> String) {
    let exp = tf_json(dir, name);
    let errs = exp["errors"].as_object().unwrap();
    assert!(errs.len() >= at_least);
    let g = tf_imported(dir, name);
    let sess = Session::new(&g).unwrap();
    for (key, want) in errs {
        let name = format!("import/{}", want["tensor"].as_str().unwrap());
        let t = g.tensor_by_name(&name).unwrap_or_else(|e| panic!("{key}: {e}"));
        let e = sess.run(&[], &[&t], &[]).err().unwrap_or_else(|| panic!("{key} ({name}) ran"));
        let code = match want["error"].as_str().unwrap() {
            "InvalidArgumentError" => tensorgraph::Code::InvalidArgument,
            "InternalError" => tensorgraph::Code::Internal,
            "FailedPreconditionError" => tensorgraph::Code::FailedPrecondition,
            "UnimplementedError" => tensorgraph::Code::Unimplemented,
            other => panic!("{key}: TensorFlow's {other} has no case here"),
        };
        assert_eq!(e.code, code, "{key}: {e}");
        let msg = expected(key, want["message"].as_str().unwrap());
        assert!(e.message.contains(&msg), "{key}: got {:?}, TensorFlow {msg:?}", e.message);
    }
}
