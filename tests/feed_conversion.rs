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
fn bool_string_and_complex_only_feed_their_own_dtype() {
    for (dtype, value) in [
        (DType::Int32, Tensor::vector(vec![true, false])),
        (DType::Bool, Tensor::vector(vec![0i32, 2])),
        (DType::String, Tensor::vector(vec![1i32, 2])),
        (DType::Int32, Tensor::strings(&[2], vec![b"1".to_vec(), b"2".to_vec()]).unwrap()),
        (DType::Float, Tensor::vector(vec![[1.0f32, 2.0]])),
    ] {
        let from = value.dtype();
        let e = feed(dtype, value).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument);
        assert!(
            e.message.contains(&format!("cannot convert {from} values to {dtype}: only float-to-float, integer-to-integer and integer-to-float conversions keep the values")),
            "{e}"
        );
    }
    // the same dtype is fed as it is
    let t = Tensor::strings(&[1], vec![b"a".to_vec()]).unwrap();
    assert_eq!(feed(DType::String, t.clone()).unwrap(), t);
}
