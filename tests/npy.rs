//! `.npy` files in the library (`format::npy`): every dtype numpy has round-trips, files
//! numpy wrote read to the values numpy saved (big-endian, Fortran order, format versions
//! 2.0 and 3.0, bytes and unicode strings; made by scripts/gen_npy_test_data.py), and
//! malformed files are errors that allocate nothing (a 4 GiB header length in a tiny file).

use half::{bf16, f16};
use std::path::{Path, PathBuf};
use tensorgraph::{Code, DType, Tensor};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/npy").join(name)
}

fn read(name: &str) -> Tensor {
    Tensor::read_npy(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A tensor of every dtype numpy has, and shapes 0-d, empty and 2-d.
fn samples() -> Vec<Tensor> {
    let mut v = vec![
        Tensor::new(&[2, 2], vec![true, false, false, true]).unwrap(),
        Tensor::new(&[3], vec![i8::MIN, 0, i8::MAX]).unwrap(),
        Tensor::new(&[3], vec![i16::MIN, -1, i16::MAX]).unwrap(),
        Tensor::new(&[2, 3], vec![i32::MIN, -2, -1, 0, 1, i32::MAX]).unwrap(),
        Tensor::new(&[2], vec![i64::MIN, i64::MAX]).unwrap(),
        Tensor::new(&[2], vec![0u8, 255]).unwrap(),
        Tensor::new(&[2], vec![1u16, u16::MAX]).unwrap(),
        Tensor::new(&[2], vec![1u32, u32::MAX]).unwrap(),
        Tensor::new(&[2], vec![1u64, u64::MAX]).unwrap(),
        Tensor::new(&[3], vec![f16::from_f32(0.5), f16::MAX, f16::NEG_INFINITY]).unwrap(),
        Tensor::new(&[2, 2], vec![1.5f32, -0.0, f32::MIN_POSITIVE, f32::INFINITY]).unwrap(),
        Tensor::new(&[1, 3], vec![std::f64::consts::PI, -1e300, 5e-324]).unwrap(),
        Tensor::new(&[2], vec![[1.0f32, -2.0], [0.5, 3.25]]).unwrap(),
        Tensor::new(&[1], vec![[1e200f64, -1e-200]]).unwrap(),
        Tensor::strings(&[3], vec![b"ab".to_vec(), vec![], vec![0xff, 0x00, b'z']]).unwrap(),
        Tensor::scalar(3.25f64),
        Tensor::scalar(-7i32),
        Tensor::zeros(DType::Int16, &[0, 3]),
        Tensor::strings(&[0], vec![]).unwrap(),
    ];
    v.push(Tensor::new(&[2, 1, 2], vec![1u8, 2, 3, 4]).unwrap());
    v
}

#[test]
fn every_numpy_dtype_round_trips_through_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, t) in samples().into_iter().enumerate() {
        let path = tmp.path().join(format!("t{i}.npy"));
        t.write_npy(&path).unwrap();
        let back = Tensor::read_npy(&path).unwrap();
        // NaN-free samples: plain equality, dtype and shape included
        assert_eq!(back, t, "{} {:?}", t.dtype(), t.shape());
        assert_eq!(Tensor::from_npy_bytes(&t.to_npy_bytes().unwrap()).unwrap(), t);
    }
    // no temporary files are left beside the written ones
    let names: Vec<String> =
        std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(names.iter().all(|n| n.ends_with(".npy")), "{names:?}");
    // NaN survives bit for bit
    let nan = Tensor::vector(vec![f32::NAN, -f32::NAN]);
    let back = Tensor::from_npy_bytes(&nan.to_npy_bytes().unwrap()).unwrap();
    let bits: Vec<u32> = back.to_vec::<f32>().unwrap().iter().map(|x| x.to_bits()).collect();
    assert_eq!(bits, vec![f32::NAN.to_bits(), (-f32::NAN).to_bits()]);
}

#[test]
fn written_files_have_numpys_header() {
    let t = Tensor::new(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let bytes = t.to_npy_bytes().unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + len]).unwrap();
    // npyz writes a trailing comma in the shape tuple, which Python (and np.load) accepts
    assert!(header.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, ), }"), "{header}");
    assert!(header.ends_with('\n') && (10 + len).is_multiple_of(16), "{header:?}");
    assert_eq!(bytes.len(), 10 + len + 24);
    assert_eq!(&bytes[10 + len..10 + len + 4], &1.0f32.to_le_bytes());
    // strings: |S<longest>, NUL-padded
    let s = Tensor::strings(&[2], vec![b"abc".to_vec(), b"d".to_vec()]).unwrap().to_npy_bytes().unwrap();
    assert!(String::from_utf8_lossy(&s).contains("'descr': '|S3'"));
    assert!(s.ends_with(b"abcd\0\0"));
}

#[test]
fn bfloat16_has_no_numpy_dtype() {
    let t = Tensor::vector(vec![bf16::from_f32(1.5)]);
    let e = t.write_npy(tempfile::tempdir().unwrap().path().join("b.npy")).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("numpy has no bfloat16 dtype"), "{e}");
    assert!(e.message.contains("convert it to float32 first (tensor.convert(DType::Float), exact)"), "{e}");
    // the conversion it names
    let f = t.convert(DType::Float).unwrap();
    assert_eq!(Tensor::from_npy_bytes(&f.to_npy_bytes().unwrap()).unwrap().to_vec::<f32>().unwrap(), vec![1.5]);
    // ml_dtypes' bfloat16, as np.save writes it ('<V2'), is named on reading
    let e = Tensor::read_npy(data("bfloat16_V2.npy")).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("the .npy dtype '<V2' (raw bytes; numpy has no bfloat16"), "{e}");
}

#[test]
fn big_endian_files_written_by_numpy() {
    let t = read("be_i4_2x3.npy");
    assert_eq!((t.dtype(), t.shape()), (DType::Int32, &[2usize, 3][..]));
    assert_eq!(t.to_vec::<i32>().unwrap(), vec![-3, -2, -1, 0, 1, 2]);
    assert_eq!(read("be_f8.npy").to_vec::<f64>().unwrap(), vec![1.5, -0.25, f64::INFINITY]);
    let h = read("be_f2.npy").to_vec::<f16>().unwrap();
    assert_eq!(h, vec![f16::from_f32(0.5), f16::from_f32(-2.0), f16::MAX]);
    assert_eq!(read("be_u2.npy").to_vec::<u16>().unwrap(), vec![1, 513, 65535]);
    assert_eq!(read("be_c8.npy").to_vec::<[f32; 2]>().unwrap(), vec![[1.0, 2.0], [-3.5, -0.5]]);
    assert_eq!(read("be_c16.npy").to_vec::<[f64; 2]>().unwrap(), vec![[0.25, -1.0]]);
}

#[test]
fn fortran_order_files_written_by_numpy_read_row_major() {
    let t = read("fortran_f4_2x3.npy");
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let t = read("fortran_i8_2x3x4.npy");
    assert_eq!(t.shape(), &[2, 3, 4]);
    assert_eq!(t.to_vec::<i64>().unwrap(), (0..24).collect::<Vec<i64>>());
    // Fortran order and big-endian together
    let t = read("fortran_be_i2_3x2.npy");
    assert_eq!((t.dtype(), t.shape()), (DType::Int16, &[3usize, 2][..]));
    assert_eq!(t.to_vec::<i16>().unwrap(), vec![1, -2, 3, -4, 5, -6]);
}

#[test]
fn strings_bool_scalars_empty_and_versions_written_by_numpy() {
    let t = read("bytes_S3.npy");
    assert_eq!(t, Tensor::strings(&[3], vec![b"ab".to_vec(), vec![], b"xyz".to_vec()]).unwrap());
    let t = read("unicode_U5.npy");
    assert_eq!(t, Tensor::strings(&[3], vec![b"a".to_vec(), "h\u{e9}llo".as_bytes().to_vec(), vec![]]).unwrap());
    assert_eq!(read("bool_2x2.npy"), Tensor::new(&[2, 2], vec![true, false, false, true]).unwrap());
    assert_eq!(read("scalar_f8.npy"), Tensor::scalar(3.25f64));
    assert_eq!(read("empty_i2_0x3.npy"), Tensor::zeros(DType::Int16, &[0, 3]));
    assert_eq!(read("v2_u1.npy"), Tensor::vector(vec![7u8, 255]));
    assert_eq!(read("v3_i1.npy"), Tensor::vector(vec![-128i8, 5]));
}

/// A `.npy` file of `header` text (version 1.0, length as given) and `data` bytes.
fn npy_v1(header: &str, data: &[u8]) -> Vec<u8> {
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(header.len() as u16).to_le_bytes());
    b.extend_from_slice(header.as_bytes());
    b.extend_from_slice(data);
    b
}

#[test]
fn a_fortran_file_written_by_hand() {
    // [[1, 2, 3], [4, 5, 6]] as uint16 column-major, big-endian
    let data: Vec<u8> = [1u16, 4, 2, 5, 3, 6].iter().flat_map(|x| x.to_be_bytes()).collect();
    let b = npy_v1("{'descr': '>u2', 'fortran_order': True, 'shape': (2, 3), }\n", &data);
    let t = Tensor::from_npy_bytes(&b).unwrap();
    assert_eq!(t, Tensor::new(&[2, 3], vec![1u16, 2, 3, 4, 5, 6]).unwrap());
}

#[test]
fn a_4_gib_header_length_is_an_error_not_an_allocation() {
    // version 2.0: a u32 header length of 0xFFFFFFFF in a 20-byte file
    let mut b = b"\x93NUMPY\x02\x00".to_vec();
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    b.extend_from_slice(b"{'descr':");
    let e = Tensor::from_npy_bytes(&b).unwrap_err();
    assert_eq!(e.code, Code::DataLoss);
    assert_eq!(e.message, "the .npy header claims 4294967295 bytes but only 9 follow (truncated or not a .npy file)");
    // through a file: the message names it
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("huge_header.npy");
    std::fs::write(&path, &b).unwrap();
    let e = Tensor::read_npy(&path).unwrap_err();
    assert_eq!(e.code, Code::DataLoss);
    assert!(
        e.message.starts_with(&format!("reading {} as a .npy file: the .npy header claims", path.display())),
        "{e}"
    );
}

#[test]
fn sizes_the_file_cannot_hold_are_errors() {
    // the shape needs more data than follows the header
    let b = npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }\n", &[0; 16]);
    let e = Tensor::from_npy_bytes(&b).unwrap_err();
    assert_eq!(e.code, Code::DataLoss);
    assert_eq!(
        e.message,
        "shape [1000000000000] of '<f8' needs 8000000000000 bytes of data, the file holds 16 (truncated?)"
    );
    // a shape whose element count overflows
    let b = npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }\n", &[]);
    let e = Tensor::from_npy_bytes(&b).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("has more elements than fit in memory"), "{e}");
    // a dimension beyond u64
    let b = npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }\n", &[]);
    assert_eq!(Tensor::from_npy_bytes(&b).unwrap_err().code, Code::InvalidArgument);
    // zero-width strings of a huge count: no data needed, the memory is refused
    let b = npy_v1("{'descr': '|S0', 'fortran_order': False, 'shape': (1152921504606846976,), }\n", &[]);
    let e = Tensor::from_npy_bytes(&b).unwrap_err();
    assert_eq!(e.code, Code::ResourceExhausted, "{e}");
    // a header longer than numpy's max_header_size, and brackets nested deeper than any dtype
    let long = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }}{}\n", " ".repeat(20_000));
    let mut b = b"\x93NUMPY\x02\x00".to_vec();
    b.extend_from_slice(&(long.len() as u32).to_le_bytes());
    b.extend_from_slice(long.as_bytes());
    b.extend_from_slice(&[0; 4]);
    let e = Tensor::from_npy_bytes(&b).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("more than numpy's max_header_size (10000)"), "{e}");
    let deep =
        format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {}1{}, }}\n", "(".repeat(40), ")".repeat(40));
    let e = Tensor::from_npy_bytes(&npy_v1(&deep, &[])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.contains("nests brackets more than 8 deep"), "{e}");
}

#[test]
fn malformed_and_unsupported_files_are_named() {
    let e = Tensor::from_npy_bytes(b"PK\x03\x04 a zip").unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("not a .npy file: it does not start with numpy's magic"), "{e}");
    let e = Tensor::from_npy_bytes(b"\x93NUMPY\x04\x00\x00\x00").unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("version 4.0"), "{e}");
    let e = Tensor::from_npy_bytes(&npy_v1("{'descr': '<f4', 'shape': (1,), }\n", &[0; 4])).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert!(e.message.starts_with("the .npy header has no 'fortran_order'"), "{e}");
    let e = Tensor::from_npy_bytes(&npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n", &[]))
        .unwrap_err();
    assert!(e.message.contains("not a non-negative integer"), "{e}");
    let e = Tensor::from_npy_bytes(&npy_v1("not python", &[])).unwrap_err();
    assert!(e.message.starts_with("the .npy header is not a Python literal"), "{e}");
    let e = Tensor::from_npy_bytes(&npy_v1("{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,), }", &[0; 8]))
        .unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("(a date or time) has no TensorFlow dtype"), "{e}");
    let e =
        Tensor::from_npy_bytes(&npy_v1("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", &[0; 4]))
            .unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("structured array"), "{e}");
    // a pickled object array, as numpy writes it
    let e = Tensor::read_npy(data("object.npy")).unwrap_err();
    assert_eq!(e.code, Code::Unimplemented);
    assert!(e.message.contains("'|O' has no fixed size (an object array, pickled by numpy)"), "{e}");
    // a file that is not there
    let e = Tensor::read_npy(data("missing.npy")).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert!(e.message.contains("missing.npy"), "{e}");
}

#[test]
fn devices_pipes_and_large_files_without_the_magic_are_refused_unread() {
    let tmp = tempfile::tempdir().unwrap();
    // a device or a named pipe: refused before it is opened (opening a pipe blocks)
    #[cfg(unix)]
    {
        let fifo = tmp.path().join("x.npy");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        for path in [Path::new("/dev/zero"), fifo.as_path()] {
            let e = Tensor::read_npy(path).unwrap_err();
            assert_eq!(e.code, Code::InvalidArgument, "{e}");
            assert_eq!(
                e.message,
                format!("reading {} as a .npy file: not a regular file (a device, pipe or socket)", path.display())
            );
        }
    }
    // a sparse 3 GiB file: its first bytes are not numpy's magic, so the rest is not read
    let big = tmp.path().join("big.npy");
    std::fs::File::create(&big).unwrap().set_len(3 << 30).unwrap();
    let e = Tensor::read_npy(&big).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument, "{e}");
    assert!(e.message.ends_with("does not start with numpy's magic \\x93NUMPY (np.save writes .npy files)"), "{e}");
}
