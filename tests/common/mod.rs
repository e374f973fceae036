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
