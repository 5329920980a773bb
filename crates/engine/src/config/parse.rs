//! From scenario JSON to validated values: flatten the sections, look up
//! every key (with a did-you-mean), parse each value by its kind and unit,
//! check its range.

use super::table::{Kind::*, ParamDef, PARAMS};
use super::value::{Val, Values};
use crate::units::Unit;
use serde_json::Value;
use std::collections::BTreeMap;

pub fn lookup(key: &str) -> Option<&'static ParamDef> {
    PARAMS.iter().find(|p| p.key == key)
}

/// Flatten nested JSON objects (`{"llc": {"ways": 11}}`) into dotted keys.
pub fn flatten(v: &Value, prefix: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                // A table is a section unless the key itself is a parameter.
                if v.is_object() && lookup(&key).is_none() {
                    flatten(v, &key, out);
                } else {
                    out.push((key, v.clone()));
                }
            }
        }
        _ => out.push((prefix.to_string(), v.clone())),
    }
}

/// Parameters that were replaced: (old key's prefix, what replaced it).
const REPLACED: &[(&str, &str)] = &[("ddr.t_", "ddr.speed, the NetDIMM DRAM's speed bin, which sets its timings")];

fn did_you_mean(key: &str) -> String {
    if let Some((_, by)) = REPLACED.iter().find(|(old, _)| key.starts_with(old)) {
        return format!("; replaced by {by}");
    }
    let best = PARAMS
        .iter()
        .map(|p| (strsim::jaro_winkler(key, p.key), p.key))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((score, k)) if score > 0.8 => format!("; did you mean '{k}'?"),
        _ => {
            let section = key.split('.').next().unwrap_or("");
            let same: Vec<&str> = PARAMS
                .iter()
                .filter(|p| p.key.starts_with(&format!("{section}.")))
                .map(|p| p.key)
                .collect();
            if same.is_empty() {
                // In order of first appearance (sections recur in the table).
                let mut secs: Vec<&str> = vec![];
                for p in PARAMS {
                    let sec = p.key.split('.').next().unwrap();
                    if !secs.contains(&sec) {
                        secs.push(sec);
                    }
                }
                format!("; sections are {}", secs.join(", "))
            } else {
                format!("; keys of '{}' are {}", section.escape_debug(), same.join(", "))
            }
        }
    }
}

fn describe_range(p: &ParamDef) -> String {
    let u = p.unit.base();
    let fmt = |x: f64| {
        if x.fract() == 0.0 && x.abs() < 1e15 {
            format!("{}", x as i64)
        } else {
            format!("{x}")
        }
    };
    match (p.min.is_finite(), p.max.is_finite()) {
        (true, true) => format!("{}..={} {u}", fmt(p.min), fmt(p.max))
            .trim_end()
            .to_string(),
        (true, false) => format!(">= {} {u}", fmt(p.min)).trim_end().to_string(),
        _ => "any".into(),
    }
}

fn parse_number(p: &ParamDef, v: &Value) -> Result<f64, String> {
    let key = p.key;
    let x = match v {
        Value::Number(n) => {
            let x = n.as_f64().unwrap();
            if matches!(
                p.unit,
                Unit::Time | Unit::Rate | Unit::Freq | Unit::ByteRate
            ) {
                return Err(format!("{key} = {x}: give a unit, {}", p.unit.accepted()));
            }
            x
        }
        // Way masks read best in hex, as CAT and IIO LLC WAYS are written.
        Value::String(s) if p.unit == Unit::None && s.starts_with("0x") => {
            u64::from_str_radix(&s[2..], 16)
                .map_err(|_| format!("{key} = {s}: not a hex number"))? as f64
        }
        Value::String(s) => p.unit.parse(s).map_err(|e| format!("{key} = {e}"))?,
        other => return Err(format!("{key} = {other}: expected {}", p.unit.accepted())),
    };
    if !(x >= p.min && x <= p.max) {
        return Err(format!(
            "{key} = {}: out of range, allowed {}",
            show(v),
            describe_range(p)
        ));
    }
    Ok(x)
}

/// A value as the error message shows it: text as written, with control
/// characters escaped so the message stays one line.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.escape_debug().to_string(),
        v => v.to_string(),
    }
}

/// A quantity written with a unit (`25Gbps`, `1ms`, `2MiB`) in `key`'s
/// base unit, without range or cross-parameter checks: a filter's value
/// (`--where`), not a scenario's.
pub fn quantity(key: &str, text: &str) -> Result<f64, String> {
    let p = lookup(key).ok_or_else(|| format!("unknown parameter '{key}'{}", did_you_mean(key)))?;
    p.unit.parse(text).map_err(|e| format!("{key} = {e}"))
}

fn parse_value(p: &ParamDef, v: &Value) -> Result<Val, String> {
    let key = p.key;
    Ok(match p.kind {
        Int => {
            let x = parse_number(p, v)?;
            // counts and bytes come whole (64.5 B is a mistake, not 65 B);
            // times, rates and frequencies round to their fine base unit
            if x.fract() != 0.0 && matches!(p.unit, Unit::None | Unit::Bytes) {
                let what = if p.unit == Unit::Bytes { "number of bytes" } else { "number" };
                return Err(format!("{key} = {}: must be a whole {what}", show(v)));
            }
            Val::Int(x.round() as u64)
        }
        Float => Val::Float(parse_number(p, v)?),
        Bool => match v {
            Value::Bool(b) => Val::Bool(*b),
            Value::String(s) if s == "true" || s == "false" => Val::Bool(s == "true"),
            _ => return Err(format!("{key} = {}: expected true or false", show(v))),
        },
        Choice(words) => match v {
            Value::String(s) if words.contains(&s.as_str()) => {
                Val::Choice(words.iter().copied().find(|w| *w == s.as_str()).expect("listed"))
            }
            _ => {
                return Err(format!(
                    "{key} = {}: expected one of {}",
                    show(v),
                    words.join(", ")
                ))
            }
        },
        Text => match v {
            Value::String(s) => Val::Text(s.clone()),
            _ => return Err(format!("{key} = {}: expected text", show(v))),
        },
        IntList | FloatList | BoolList => {
            let items: Vec<Value> = match v {
                Value::Array(a) => a.clone(),
                // `--set key=1,2,3` arrives as text
                Value::String(s) if s.trim().is_empty() || s.trim() == "[]" => vec![],
                Value::String(s) => s
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .map(|t| Value::String(t.trim().to_string()))
                    .collect(),
                _ => return Err(format!("{key} = {}: expected a list", show(v))),
            };
            let elem = ParamDef {
                kind: match p.kind {
                    IntList => Int,
                    FloatList => Float,
                    _ => Bool,
                },
                ..*p
            };
            let mut ints = vec![];
            let mut floats = vec![];
            let mut bools = vec![];
            for it in &items {
                // hex masks like "0x7ff" are handy for CAT
                let it = match it {
                    Value::String(s) if s.starts_with("0x") => {
                        match u64::from_str_radix(&s[2..], 16) {
                            Ok(n) => Value::from(n),
                            Err(_) => return Err(format!("{key}: '{}' is not a hex number", s.escape_debug())),
                        }
                    }
                    Value::String(s) if p.kind != BoolList && p.unit == Unit::None => {
                        match s.parse::<f64>() {
                            Ok(x) => Value::from(x),
                            Err(_) => return Err(format!("{key}: '{}' is not a number", s.escape_debug())),
                        }
                    }
                    _ => it.clone(),
                };
                match parse_value(&elem, &it).map_err(|e| format!("{e} (in the list {key})"))? {
                    Val::Int(x) => ints.push(x),
                    Val::Float(x) => floats.push(x),
                    Val::Bool(x) => bools.push(x),
                    _ => unreachable!(),
                }
            }
            match p.kind {
                IntList => Val::IntList(ints),
                FloatList => Val::FloatList(floats),
                _ => Val::BoolList(bools),
            }
        }
    })
}

fn default_json(p: &ParamDef) -> Value {
    match p.kind {
        Bool => Value::Bool(p.default == "true"),
        IntList | FloatList | BoolList => {
            serde_json::from_str(p.default).expect("list default is JSON")
        }
        _ => Value::String(p.default.to_string()),
    }
}

/// Parse a nested or flat JSON scenario (profile already merged in): every
/// key known, every value of its kind and in its range. Returns the values
/// and the keys the scenario gave. The error is one line naming the key,
/// the value and what is allowed.
pub fn parse(scenario: &Value) -> Result<(Values, Vec<&'static str>), String> {
    let mut given = vec![];
    flatten(scenario, "", &mut given);
    let mut cfg = BTreeMap::new();
    for p in PARAMS {
        cfg.insert(
            p.key,
            parse_value(p, &default_json(p)).unwrap_or_else(|e| panic!("bad default: {e}")),
        );
    }
    let mut keys = vec![];
    for (key, v) in &given {
        if key.is_empty() {
            return Err("scenario must be a table of sections (sim, traffic, nic, ...)".into());
        }
        let p =
            lookup(key).ok_or_else(|| format!("unknown parameter '{}'{}", key.escape_debug(), did_you_mean(key)))?;
        cfg.insert(p.key, parse_value(p, v)?);
        keys.push(p.key);
    }
    Ok((Values(cfg), keys))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_parameter_names_its_replacement() {
        assert_eq!(did_you_mean("ddr.t_cl"), "; replaced by ddr.speed, the NetDIMM DRAM's speed bin, which sets its timings");
    }

    #[test]
    fn every_param_has_doc_and_valid_default() {
        for p in PARAMS {
            assert!(!p.doc.is_empty(), "{}", p.key);
            parse_value(p, &default_json(p)).unwrap();
            assert_eq!(
                PARAMS.iter().filter(|q| q.key == p.key).count(),
                1,
                "duplicate {}",
                p.key
            );
        }
    }

    #[test]
    fn every_default_fills_its_typed_field() {
        // FromVal panics on a kind that does not match its field's type.
        let (values, _) = parse(&serde_json::json!({})).unwrap();
        let cfg = crate::config::Cfg::from_values(&values);
        assert_eq!((cfg.llc.ways, cfg.sim.kind, cfg.traffic.pcap.as_str()), (11, crate::config::SimKind::Packet, ""));
    }
}
