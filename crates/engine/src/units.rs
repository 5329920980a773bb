//! Units: integer picosecond time, bytes, and parsing of the unit strings a
//! scenario may use (`100Gbps`, `2MiB`, `64B`, `2.1GHz`, `500ns`).
//!
//! Parsing happens once, at the boundary; the engine only sees integers.

/// Simulated time in picoseconds. A 64 B frame at 800 Gbps lasts 840 ps, and
/// a u64 of picoseconds covers 213 days, so integer ps is exact and enough.
pub type Time = u64;

pub const PS: Time = 1;
pub const NS: Time = 1_000;
pub const US: Time = 1_000_000;
pub const MS: Time = 1_000_000_000;
pub const S: Time = 1_000_000_000_000;

/// The kind of quantity a parameter holds; decides which suffixes parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Plain count or ratio, no suffix.
    None,
    /// Bytes: `B`, `KiB`, `MiB`, `GiB`, `KB`, `MB`, `GB`; stored as bytes.
    Bytes,
    /// Time: `ps`, `ns`, `us`, `ms`, `s`; stored as picoseconds.
    Time,
    /// Bit rate: `bps`, `Kbps`, `Mbps`, `Gbps`, `Tbps`; stored as Mbit/s
    /// (integer Mbps is exact for every Ethernet and PCIe rate).
    Rate,
    /// Frequency: `Hz`, `KHz`, `MHz`, `GHz`; stored as MHz.
    Freq,
    /// Bandwidth in bytes per second: `MB/s`, `GB/s`; stored as MB/s.
    ByteRate,
}

impl Unit {
    /// The name of the stored base unit, as `packetpath params` prints it.
    pub fn base(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Bytes => "B",
            Unit::Time => "ps",
            Unit::Rate => "Mbps",
            Unit::Freq => "MHz",
            Unit::ByteRate => "MB/s",
        }
    }

    fn suffixes(self) -> &'static [(&'static str, f64)] {
        match self {
            Unit::None => &[("", 1.0)],
            Unit::Bytes => &[
                ("B", 1.0),
                ("KiB", 1024.0),
                ("MiB", 1048576.0),
                ("GiB", 1073741824.0),
                ("KB", 1e3),
                ("MB", 1e6),
                ("GB", 1e9),
                ("", 1.0),
            ],
            Unit::Time => &[
                ("ps", 1.0),
                ("ns", 1e3),
                ("us", 1e6),
                ("µs", 1e6),
                ("ms", 1e9),
                ("s", 1e12),
            ],
            Unit::Rate => &[
                ("bps", 1e-6),
                ("Kbps", 1e-3),
                ("Mbps", 1.0),
                ("Gbps", 1e3),
                ("Tbps", 1e6),
            ],
            Unit::Freq => &[
                ("Hz", 1e-6),
                ("KHz", 1e-3),
                ("kHz", 1e-3),
                ("MHz", 1.0),
                ("GHz", 1e3),
            ],
            Unit::ByteRate => &[("MB/s", 1.0), ("GB/s", 1e3)],
        }
    }

    /// Accepted suffixes, for error messages.
    pub fn accepted(self) -> String {
        let v: Vec<&str> = self
            .suffixes()
            .iter()
            .map(|s| s.0)
            .filter(|s| !s.is_empty())
            .collect();
        if v.is_empty() {
            "a plain number".into()
        } else {
            format!("a number with one of {}", v.join(", "))
        }
    }

    /// Parse `"2.1GHz"`-style text into the base unit. Returns the value as
    /// f64 (callers round to the integer they store).
    pub fn parse(self, text: &str) -> Result<f64, String> {
        let t = text.trim();
        let split = t
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+'))
            .map(|(i, _)| i)
            .unwrap_or(t.len());
        let (num, suffix) = t.split_at(split);
        let suffix = suffix.trim();
        let rate_alias;
        let suffix = if self == Unit::Rate {
            rate_alias = rate_suffix(suffix);
            rate_alias.as_str()
        } else {
            suffix
        };
        let num: f64 = num
            .parse()
            .map_err(|_| format!("'{}' is not {}", text.escape_debug(), self.accepted()))?;
        for (s, mult) in self.suffixes() {
            if *s == suffix {
                return Ok(num * mult);
            }
        }
        Err(format!(
            "'{}' has unknown unit '{}'; expected {}",
            text.escape_debug(),
            suffix.escape_debug(),
            self.accepted()
        ))
    }
}

/// A bit rate's suffix as the field writes it, in the table's form: `Gb/s`,
/// `Gbit/s` and a bare `G` (as in "100G Ethernet") are `Gbps`; `k` is `K`.
fn rate_suffix(suffix: &str) -> String {
    let prefix = suffix.strip_suffix("bit/s").or_else(|| suffix.strip_suffix("b/s")).or_else(|| suffix.strip_suffix("bps"));
    let prefix = match prefix {
        Some(p) => p,
        None if matches!(suffix, "K" | "k" | "M" | "G" | "T") => suffix,
        None => return suffix.to_string(),
    };
    format!("{}bps", if prefix == "k" { "K" } else { prefix })
}

/// Time to serialise `bytes` at `rate_mbps`, in picoseconds (rounded up).
pub fn ser_time(bytes: u64, rate_mbps: u64) -> Time {
    // bytes*8 bits / (rate_mbps*1e6 bit/s) = bytes*8e6/rate_mbps ps
    (bytes * 8_000_000).div_ceil(rate_mbps)
}

/// Cycles at `freq_mhz` to picoseconds.
pub fn cycles_to_ps(cycles: u64, freq_mhz: u64) -> Time {
    cycles * 1_000_000 / freq_mhz
}

/// Bytes as GiB, for messages.
pub fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// Picoseconds to cycles at `freq_mhz` (rounded down).
pub fn ps_to_cycles(ps: Time, freq_mhz: u64) -> u64 {
    ps * freq_mhz / 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_issue_examples() {
        assert_eq!(Unit::Rate.parse("100Gbps").unwrap(), 100_000.0);
        for text in ["100G", "100Gb/s", "100Gbit/s", "100 Gbps", "100000Mb/s", "100000000kbit/s"] {
            assert_eq!(Unit::Rate.parse(text).unwrap(), 100_000.0, "{text}");
        }
        assert!(Unit::Rate.parse("100GB/s").is_err(), "bytes are not bits");
        assert_eq!(Unit::Bytes.parse("2MiB").unwrap(), 2097152.0);
        assert_eq!(Unit::Bytes.parse("64B").unwrap(), 64.0);
        assert!((Unit::Freq.parse("2.1GHz").unwrap() - 2100.0).abs() < 1e-9);
        assert_eq!(Unit::Time.parse("500ns").unwrap(), 500_000.0);
        assert_eq!(Unit::Time.parse("1.5 us").unwrap(), 1_500_000.0);
    }

    #[test]
    fn rejects_wrong_units() {
        assert!(Unit::Rate
            .parse("100GB")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(Unit::Bytes.parse("abc").is_err());
        assert!(Unit::Time.parse("5").is_err());
    }

    #[test]
    fn serialisation_time_matches_line_rate() {
        // 1500 B frame + 20 B preamble/IFG at 100 Gbps = 121.6 ns.
        assert_eq!(ser_time(1520, 100_000), 121_600);
        assert_eq!(cycles_to_ps(23, 2300), 10_000);
        assert_eq!(ps_to_cycles(10_000, 2300), 23);
    }
}
