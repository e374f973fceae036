//! nn ops (being written).

use super::OpDef;

pub(super) static DEFS: &[&dyn OpDef] = &[];
