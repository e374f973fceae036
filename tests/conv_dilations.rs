//! Conv2D with `dilations` and with `padding = "EXPLICIT"` (what `tf.nn.conv2d(...,
//! dilations=...)` and explicit paddings write) against TensorFlow 2.21: a graph TensorFlow
//! built (`tests/data/conv_dilations/conv.pbtxt`, by `scripts/gen_conv_dilations.py`)
//! imports and runs to TensorFlow's values, float32 and float64, with TensorFlow's gradient
//! subgraphs for explicit padding (its CPU backprop kernels refuse dilation rates above 1).

mod common;

#[test]
fn dilated_and_explicitly_padded_convolutions_run_to_tensorflows_values() {
    common::runs_to_tensorflows_values("conv_dilations", "conv", 7);
}

/// The gradients of dilated and explicitly padded convolutions (Conv2DBackpropInput/Filter
/// with the same attrs; TensorFlow's CPU kernels refuse dilation rates above 1, so finite
/// differences are the reference there), float64.
#[test]
fn dilated_and_explicitly_padded_gradients_match_finite_differences() {
    use tensorgraph::graph::AttrValue;
    use tensorgraph::DType;
    // (padding, dilations, strides, explicit_paddings)
    type Case = (&'static str, Vec<i64>, Vec<i64>, Vec<i64>);
    let cases: [Case; 3] = [
        ("SAME", vec![1, 2, 2, 1], vec![1, 1, 1, 1], vec![]),
        ("VALID", vec![1, 2, 1, 1], vec![1, 1, 2, 1], vec![]),
        ("EXPLICIT", vec![1, 1, 2, 1], vec![1, 2, 1, 1], vec![0, 0, 1, 2, 2, 0, 0, 0]),
    ];
    for (i, (padding, dilations, strides, explicit)) in cases.into_iter().enumerate() {
        let seed = 20 + 3 * i as u64;
        let (out_h, out_w) = match padding {
            "SAME" => (6, 5),
            "VALID" => (2, 2),
            _ => (4, 3),
        };
        common::check_gradients(
            &[common::one(&[1, 6, 5, 2], seed, -1.0, 1.0), common::one(&[3, 3, 2, 2], seed + 1, -1.0, 1.0)],
            1e-6,
            |s, x| {
                let mut b = s
                    .op("Conv2D", "Conv2D")
                    .input(&x[0])
                    .input(&x[1])
                    .attr("T", DType::Double)
                    .attr("strides", AttrValue::ListInt(strides.clone()))
                    .attr("padding", padding)
                    .attr("dilations", AttrValue::ListInt(dilations.clone()));
                if !explicit.is_empty() {
                    b = b.attr("explicit_paddings", AttrValue::ListInt(explicit.clone()));
                }
                let y = b.build_output().unwrap_or_else(|e| panic!("{padding}: {e}"));
                assert_eq!(
                    y.shape().dims().map(<[_]>::to_vec),
                    Some(vec![Some(1), Some(out_h), Some(out_w), Some(2)]),
                    "{padding}"
                );
                common::weighted(s, &y, &[1, out_h, out_w, 2], seed + 2)
            },
        );
    }
}
