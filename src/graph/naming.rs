//! Unique op names exactly as TensorFlow's `Graph.unique_name`: `add`, `add_1`, ...;
//! names are compared case-insensitively, and a uniquified name is itself marked used.

use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;
use std::borrow::Cow;

/// What [`NameTable::unique_undoable`] did: the name asked for, the name given, and the
/// count of the asked-for name before.
#[derive(Debug)]
pub(crate) struct UniqueUndo {
    requested: String,
    given: String,
    previous: Option<usize>,
}

/// The table's key for `name`: lowercased, borrowed when it already is.
fn lowercase(name: &str) -> Cow<'_, str> {
    if name.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        Cow::Owned(name.to_lowercase())
    } else {
        Cow::Borrowed(name)
    }
}

/// The names in use in one graph, with the next suffix for each.
#[derive(Debug, Default, Clone)]
pub struct NameTable {
    in_use: HashMap<String, usize, FxBuildHasher>,
}

impl NameTable {
    /// Returns `name` made unique (`name`, `name_1`, `name_2`, ...) and marks it used.
    /// `name` is the full name, including any scope prefix.
    pub fn unique(&mut self, name: &str) -> String {
        let key = name.to_lowercase();
        let mut i = self.in_use.get(&key).copied().unwrap_or(0);
        self.in_use.insert(key.clone(), i + 1);
        if i == 0 {
            return name.to_string();
        }
        let mut candidate = key.clone();
        while self.in_use.contains_key(&candidate) {
            candidate = format!("{key}_{i}");
            i += 1;
        }
        self.in_use.insert(candidate, 1);
        format!("{name}_{}", i - 1)
    }

    /// [`NameTable::unique`], also returning what [`NameTable::undo_unique`] needs to take
    /// the name back (an import that failed gives its prefix back).
    pub(crate) fn unique_undoable(&mut self, name: &str) -> (String, UniqueUndo) {
        let previous = self.in_use.get(&name.to_lowercase()).copied();
        let unique = self.unique(name);
        let undo = UniqueUndo { requested: name.to_string(), given: unique.clone(), previous };
        (unique, undo)
    }

    /// Takes back a name [`NameTable::unique_undoable`] gave.
    pub(crate) fn undo_unique(&mut self, undo: UniqueUndo) {
        let key = undo.requested.to_lowercase();
        match undo.previous {
            Some(n) => self.in_use.insert(key, n),
            None => self.in_use.remove(&key),
        };
        if undo.given != undo.requested {
            self.in_use.remove(&undo.given.to_lowercase());
        }
    }

    /// Marks an exact name used (an op created with an explicit full name, or imported),
    /// calling `added(len)` for each name it newly marks: `name` itself and its enclosing scopes, as the length of that prefix of `name` (for
    /// [`NameTable::forget`] to take back).
    pub(crate) fn mark_used_reporting(&mut self, name: &str, mut added: impl FnMut(usize)) {
        // the name and every enclosing scope of it are in use, as in TensorFlow
        let mut part = name;
        loop {
            if let hashbrown::hash_map::EntryRef::Vacant(e) = self.in_use.entry_ref(lowercase(part).as_ref()) {
                e.insert(1);
                added(part.len());
            }
            match part.rfind('/') {
                Some(pos) => part = &part[..pos],
                None => break,
            }
        }
    }

    /// Unmarks `name` (which [`NameTable::mark_used_reporting`] added).
    pub(crate) fn forget(&mut self, name: &str) {
        self.in_use.remove(lowercase(name).as_ref());
    }

    /// Makes room for `n` more names.
    pub fn reserve(&mut self, n: usize) {
        self.in_use.reserve(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_follow_tensorflow() {
        let mut t = NameTable::default();
        assert_eq!(t.unique("add"), "add");
        assert_eq!(t.unique("add"), "add_1");
        assert_eq!(t.unique("add"), "add_2");
        assert_eq!(t.unique("add_1"), "add_1_1");
        assert_eq!(t.unique("Add"), "Add_3");
    }
}
