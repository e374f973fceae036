//! Prints every op type tensorgraph registers, one a line, sorted
//! ([`tensorgraph::ops::registered_op_types`]). `scripts/gen_op_schema.py` reads this list
//! to generate `src/ops/schema/op_defs.pbtxt`:
//!
//! ```sh
//! cargo run --release --quiet --example registered_ops \
//!   | ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_op_schema.py
//! ```

fn main() {
    for t in tensorgraph::ops::registered_op_types() {
        println!("{t}");
    }
}
