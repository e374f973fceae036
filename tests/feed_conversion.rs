//! Feeds of another dtype than the fed tensor's are converted as TensorFlow's
//! `feed_dict` converts them (`np.asarray(value, dtype=placeholder.dtype)`), where that
//! keeps the values: float to float, integer to integer when every value fits, integer
//! to float. Where numpy would lose values silently (a float truncated to an integer, an
//! integer wrapped, a finite float made inf) the feed is refused, naming the tensor, the
//! value, its index, and what to do. The converted values are TensorFlow 2.21's (noted
//! beside each case).

use half::{bf16, f16};
use tensorgraph::{ops, Code, DType, Graph, Session, Tensor};

/// Feeds `value` to a `[None]` (or `[None, 2]`) placeholder `x` of `dtype` and fetches
/// `Identity(x)`.
fn feed(dtype: DType, value: Tensor) -> tensorgraph::Result<Tensor> {
    let g = Graph::new();
    let s = g.scope();
    let dims: Vec<Option<usize>> = match value.rank() {
        1 => vec![None],
        _ => vec![None, Some(2)],
    };
    let x = ops::placeholder(&s.named("x"), dtype, tensorgraph::Shape::partial(&dims)).unwrap();
    let y = ops::identity(&s, &x).unwrap();
    Session::new(&g).unwrap().fetch(&[(&x, value)], &y)
}

#[test]
fn floats_convert_to_floats() {
    // float32 <- float64 [1.5, 0.1]: array([1.5, 0.1], dtype=float32)
    let t = feed(DType::Float, Tensor::vector(vec![1.5f64, 0.1])).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.5, 0.1]);
    // float64 <- float32 [1.5]; bfloat16 <- float32 [1.5]; float16 <- float64 [1.5]
    assert_eq!(feed(DType::Double, Tensor::vector(vec![1.5f32])).unwrap().to_vec::<f64>().unwrap(), vec![1.5]);
    let t = feed(DType::BFloat16, Tensor::vector(vec![1.5f32, -0.1])).unwrap();
    assert_eq!(t.to_vec::<bf16>().unwrap(), vec![bf16::from_f32(1.5), bf16::from_f32(-0.1)]);
    let t = feed(DType::Half, Tensor::vector(vec![1.5f64, 65504.0])).unwrap();
    assert_eq!(t.to_vec::<f16>().unwrap(), vec![f16::from_f32(1.5), f16::MAX]);
    // NaN and infinities stay what they are
    let t = feed(DType::Float, Tensor::vector(vec![f64::NAN, f64::NEG_INFINITY])).unwrap();
    let v = t.to_vec::<f32>().unwrap();
    assert!(v[0].is_nan() && v[1] == f32::NEG_INFINITY);
}

#[test]
fn a_finite_float_beyond_the_range_is_refused() {
    // numpy makes 1e300 inf in float32 (and 1e10 inf in float16); that loses the value
    let e = feed(DType::Float, Tensor::new(&[2, 2], vec![1.5f64, 0.0, 1e300, 2.0]).unwrap()).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "Cannot feed a tensor of dtype float64 for Tensor x:0, which has dtype float32: value 1e300 at [1, 0] does not fit in float32 (largest magnitude 3.4028235e38); feed a wider dtype or change the fed tensor's dtype"
    );
    let e = feed(DType::Half, Tensor::vector(vec![1.5f64, 1e10])).unwrap_err();
    assert!(
        e.message.contains("value 10000000000.0 at [1] does not fit in float16 (largest magnitude 65504.0)"),
        "{e}"
    );
}

#[test]
fn integers_convert_when_every_value_fits() {
    // int32 <- int64 [5]: array([5], dtype=int32); int64 <- int32 [5]
    assert_eq!(feed(DType::Int32, Tensor::vector(vec![5i64, -7])).unwrap().to_vec::<i32>().unwrap(), vec![5, -7]);
    assert_eq!(feed(DType::Int64, Tensor::vector(vec![5i32])).unwrap().to_vec::<i64>().unwrap(), vec![5]);
    assert_eq!(feed(DType::UInt8, Tensor::vector(vec![0i32, 255])).unwrap().to_vec::<u8>().unwrap(), vec![0, 255]);
    assert_eq!(feed(DType::UInt64, Tensor::vector(vec![u64::MAX])).unwrap().to_vec::<u64>().unwrap(), vec![u64::MAX]);
    // TensorFlow wraps: int32 <- int64 [2^40] is [0], uint8 <- int32 [-1, 300] is [255, 44]
    let e = feed(DType::Int32, Tensor::vector(vec![5i64, 1 << 40])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "Cannot feed a tensor of dtype int64 for Tensor x:0, which has dtype int32: value 1099511627776 at [1] does not fit in int32 (-2147483648 to 2147483647); feed a wider dtype or change the fed tensor's dtype"
    );
    let e = feed(DType::UInt8, Tensor::vector(vec![-1i32, 300])).unwrap_err();
    assert!(e.message.contains("value -1 at [0] does not fit in uint8 (0 to 255)"), "{e}");
}

#[test]
fn integers_convert_to_floats() {
    // float32 <- int32 [5, 2^30 + 1]: array([5.0000000e+00, 1.0737418e+09], dtype=float32)
    let t = feed(DType::Float, Tensor::vector(vec![5i32, (1 << 30) + 1])).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![5.0, 1073741824.0]);
    // float32 <- int64 [5]; float64 <- uint64
    assert_eq!(feed(DType::Float, Tensor::vector(vec![5i64])).unwrap().to_vec::<f32>().unwrap(), vec![5.0]);
    assert_eq!(feed(DType::Double, Tensor::vector(vec![7u64])).unwrap().to_vec::<f64>().unwrap(), vec![7.0]);
    // beyond float16's range
    let e = feed(DType::Half, Tensor::vector(vec![70000i32])).unwrap_err();
    assert!(e.message.contains("value 70000.0 at [0] does not fit in float16"), "{e}");
}

#[test]
fn floats_are_not_fed_to_integers() {
    // TensorFlow: int32 <- float64 [1.5, -2.7] is [1, -2], and NaN becomes -2147483648
    let e = feed(DType::Int32, Tensor::vector(vec![1.5f64, -2.7])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.starts_with(
            "Cannot feed a tensor of dtype float64 for Tensor x:0, which has dtype int32: cannot convert float64 values to int32: a float becomes an integer only by rounding or truncating"
        ),
        "{e}"
    );
    assert!(e.message.contains("np.rint(x).astype(np.int32)") && e.message.contains("ops::cast to int32"), "{e}");
    // even when the floats hold whole numbers
    assert!(feed(DType::Int64, Tensor::vector(vec![1.0f32, 2.0])).is_err());
}

#[test]
fn bool_and_string_only_feed_their_own_dtype() {
    for (dtype, value) in [
        (DType::Int32, Tensor::vector(vec![true, false])),
        (DType::Bool, Tensor::vector(vec![0i32, 2])),
        (DType::String, Tensor::vector(vec![1i32, 2])),
        (DType::Int32, Tensor::strings(&[2], vec![b"1".to_vec(), b"2".to_vec()]).unwrap()),
        (DType::Complex64, Tensor::vector(vec![true, false])),
    ] {
        let from = value.dtype();
        let e = feed(dtype, value).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(
            e.message.contains(&format!("cannot convert {from} values to {dtype}: only float-to-float, integer-to-integer, integer-to-float and float-or-integer-to-complex conversions keep the values")),
            "{e}"
        );
    }
    // the same dtype is fed as it is
    let t = Tensor::strings(&[1], vec![b"a".to_vec()]).unwrap();
    assert_eq!(feed(DType::String, t.clone()).unwrap(), t);
}

/// Complex placeholders take complex128 (narrowed part by part, as numpy), complex64, and
/// float and integer values (imaginary part 0), as TensorFlow's `feed_dict`
/// (`np.asarray(v, np.complex64)`): `s.run(p * 2, {p: np.array([1+2j], np.complex128)})` is
/// `[2+4j]`, of `np.array([1.5, 2], np.float32)` `[3+0j, 4+0j]`.
#[test]
fn real_and_complex_values_feed_complex_placeholders() {
    let t = feed(DType::Complex64, Tensor::vector(vec![[1.0f64, 2.0], [0.1, -1e30]])).unwrap();
    assert_eq!(t.to_vec::<[f32; 2]>().unwrap(), vec![[1.0, 2.0], [0.1, -1e30]]);
    let t = feed(DType::Complex64, Tensor::vector(vec![1.5f32, -2.0])).unwrap();
    assert_eq!(t.to_vec::<[f32; 2]>().unwrap(), vec![[1.5, 0.0], [-2.0, 0.0]]);
    let t = feed(DType::Complex64, Tensor::vector(vec![3i64, -(1 << 40)])).unwrap();
    assert_eq!(t.to_vec::<[f32; 2]>().unwrap(), vec![[3.0, 0.0], [-(2f32.powi(40)), 0.0]]);
    let t = feed(DType::Complex128, Tensor::vector(vec![[0.1f32, -0.5]])).unwrap();
    assert_eq!(t.to_vec::<[f64; 2]>().unwrap(), vec![[f64::from(0.1f32), -0.5]]);
    let t = feed(DType::Complex128, Tensor::vector(vec![0.1f64, f64::NAN])).unwrap();
    let v = t.to_vec::<[f64; 2]>().unwrap();
    assert!(v[0] == [0.1, 0.0] && v[1][0].is_nan() && v[1][1] == 0.0);
    // numpy-written .npy files (scripts/gen_npy_test_data.py): complex128 [0.25-1j] and
    // float32 [[0, 1, 2], [3, 4, 5]] (Fortran order) fed to a complex64 placeholder of any shape
    let npy = |name: &str| Tensor::read_npy(common_npy(name)).unwrap();
    let t = feed_any(DType::Complex64, npy("be_c16.npy")).unwrap();
    assert_eq!(t.to_vec::<[f32; 2]>().unwrap(), vec![[0.25, -1.0]]);
    let t = feed_any(DType::Complex64, npy("fortran_f4_2x3.npy")).unwrap();
    assert_eq!(t.shape(), &[2, 3]);
    let want: Vec<[f32; 2]> =
        npy("fortran_f4_2x3.npy").to_vec::<f32>().unwrap().into_iter().map(|x| [x, 0.0]).collect();
    assert_eq!(t.to_vec::<[f32; 2]>().unwrap(), want);
    let t = feed(DType::Complex128, Tensor::vector(vec![7u8])).unwrap();
    assert_eq!(t.to_vec::<[f64; 2]>().unwrap(), vec![[7.0, 0.0]]);
    // a finite part beyond float32's range: numpy makes it inf (with a RuntimeWarning)
    let e = feed(DType::Complex64, Tensor::vector(vec![[1.0f64, 0.0], [1e300, 1.0]])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(
        e.message.contains("Cannot feed a tensor of dtype complex128 for Tensor x:0, which has dtype complex64: value (1e300+1.0j) at [1] does not fit in complex64 (parts of largest magnitude 3.4028235e38)"),
        "{e}"
    );
}

/// Complex values fed to a real placeholder are refused: TensorFlow's `feed_dict` drops the
/// imaginary parts silently (numpy's `ComplexWarning`).
#[test]
fn complex_values_do_not_feed_real_placeholders() {
    for (dtype, value) in [
        (DType::Float, Tensor::vector(vec![[1.0f32, 2.0]])),
        (DType::Double, Tensor::vector(vec![[1.0f64, 0.0]])),
        (DType::Int32, Tensor::vector(vec![[1.0f32, 0.0]])),
    ] {
        let from = value.dtype();
        let e = feed(dtype, value).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(
            e.message.starts_with(&format!("Cannot feed a tensor of dtype {from} for Tensor x:0, which has dtype {dtype}: cannot convert {from} values to {dtype}: a complex value becomes real only by dropping its imaginary part, which a conversion does not do (TensorFlow's feed_dict drops it silently); feed {dtype} values, or feed a {from} placeholder and take ops::real of it in the graph")),
            "{e}"
        );
    }
}

/// `tests/data/npy/<name>`.
fn common_npy(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/npy").join(name)
}

/// Feeds `value` to a placeholder `x` of `dtype` and unknown shape; fetches `Identity(x)`.
fn feed_any(dtype: DType, value: Tensor) -> tensorgraph::Result<Tensor> {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), dtype, tensorgraph::Shape::unknown()).unwrap();
    let y = ops::identity(&s, &x).unwrap();
    Session::new(&g).unwrap().fetch(&[(&x, value)], &y)
}
