//! A TensorBoard event file (TFRecord framing of `Event`s) from the input: find it in its log
//! directory, read every record, and decode what each event carries: the summary values'
//! tensors (`TensorProto::to_tensor`, then as numbers when `tensorgraph events` shows them so), the
//! serialized GraphDef and MetaGraphDef.
//!
//! Each input is read twice: as it is (the framing and its checksums), and with its records'
//! checksums recomputed, so that mutations of the payloads reach the `Event` decoder instead
//! of stopping at a checksum mismatch (a fuzzer rarely guesses a CRC-32C).
#![no_main]
mod common;
use libfuzzer_sys::fuzz_target;
use prost::Message;
use tensorgraph::format::proto::{EventKind, GraphDef, MetaGraphDef, SummaryKind};
use tensorgraph::format::tfrecord::encode_record;
use tensorgraph::train::summary::{event_files, EventFileReader};

/// `data` with every record's checksums made right: each record is taken as its stored
/// length (cut to the bytes left) and payload, and framed again; bytes too few for a header
/// are kept as they are (a truncated last record).
fn with_checksums(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut rest = data;
    while rest.len() >= 12 {
        let len = u64::from_le_bytes(rest[..8].try_into().expect("8 bytes"));
        let body = &rest[12..];
        let n = usize::try_from(len).unwrap_or(usize::MAX).min(body.len());
        out.extend_from_slice(&encode_record(&body[..n]));
        rest = &body[(n + 4).min(body.len())..];
    }
    out.extend_from_slice(rest);
    out
}

fn read_log(data: &[u8]) {
    common::put("logs/events.out.tfevents.1.fuzz", data);
    let Ok(files) = event_files(common::scratch().join("logs")) else { return };
    for file in files {
        let Ok(mut reader) = EventFileReader::open(&file) else { continue };
        for event in reader.by_ref() {
            let Ok(event) = event else { break };
            match event.what {
                Some(EventKind::Summary(summary)) => {
                    for value in &summary.value {
                        if let Some(SummaryKind::Tensor(t)) = &value.value {
                            // as `tensorgraph events` shows them: as numbers up to 2^20 elements
                            if let Ok(t) = t.to_tensor() {
                                if t.num_elements() <= 1 << 20 {
                                    let _ = t.to_f64_vec();
                                }
                            }
                        }
                    }
                }
                Some(EventKind::GraphDef(bytes)) => {
                    let _ = GraphDef::decode(bytes.as_slice());
                }
                Some(EventKind::MetaGraphDef(bytes)) => {
                    let _ = MetaGraphDef::decode(bytes.as_slice());
                }
                _ => {}
            }
        }
        let _ = reader.warning();
    }
}

fuzz_target!(|data: &[u8]| {
    read_log(data);
    read_log(&with_checksums(data));
});
