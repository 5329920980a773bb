//! A validated parameter value, and the flat map of them a scenario
//! parses into; the typed sections are filled from it.

use std::collections::BTreeMap;

/// A validated parameter value in base units.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Val {
    Int(u64),
    Float(f64),
    Bool(bool),
    /// One of the parameter's words.
    Choice(&'static str),
    Text(String),
    IntList(Vec<u64>),
    FloatList(Vec<f64>),
    BoolList(Vec<bool>),
}

/// Validated values, flat: every key of the parameter table with its value, in key
/// order (what `validate_json` returns).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Values(pub BTreeMap<&'static str, Val>);

impl Values {
    pub fn get(&self, key: &str) -> &Val {
        self.0
            .get(key)
            .unwrap_or_else(|| panic!("engine bug: parameter '{key}' is not declared in PARAMS"))
    }
    /// An integer parameter by key (tools and tests; components read their sections).
    pub fn int(&self, key: &str) -> u64 {
        u64::from_val(self.get(key))
    }
}

/// A field of a typed section from its validated value. The table gives
/// each parameter one kind and its field the matching type, so a mismatch
/// is an engine bug the every-default test catches.
pub trait FromVal {
    fn from_val(v: &Val) -> Self;
}

macro_rules! from_val {
    ($($t:ty => $variant:ident),*) => {$(
        impl FromVal for $t {
            fn from_val(v: &Val) -> $t {
                match v {
                    Val::$variant(x) => x.clone(),
                    v => panic!("engine bug: {v:?} is not a {}", stringify!($variant)),
                }
            }
        }
    )*};
}
from_val!(u64 => Int, f64 => Float, bool => Bool, String => Text,
          Vec<u64> => IntList, Vec<f64> => FloatList, Vec<bool> => BoolList);

