//! Quantities with units as they appear in scenario files: "50Mbps", "10ms", "1500B", "2BDP".
//!
//! Each type parses from a string (or, where it is unambiguous, a bare number), rejects negative or
//! malformed values with a message that lists the allowed units, and prints back in a canonical form
//! so that a resolved scenario round-trips.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

use crate::time::{SimDuration, NANOS_PER_MICRO, NANOS_PER_MILLI, NANOS_PER_SEC};

/// Splits "12.5Mbps" into (12.5, "Mbps"). Whitespace between number and unit is allowed.
fn split_number_unit(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
        .unwrap_or(text.len());
    // A unit may start with 'e'/'E' only in theory; none of ours does except none, so this is safe.
    let (number, unit) = text.split_at(end);
    let value: f64 = number.trim().parse().ok()?;
    Some((value, unit.trim()))
}

fn check_finite_non_negative(value: f64, text: &str, what: &str) -> Result<f64, String> {
    if !value.is_finite() {
        return Err(format!("{what} '{text}' is not a finite number"));
    }
    if value < 0.0 {
        return Err(format!("{what} '{text}' is negative; it must be zero or more"));
    }
    Ok(value)
}

/// A link or application rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const ALLOWED: &'static str = "a positive number with a unit: bps, Kbps, Mbps or Gbps (e.g. \"50Mbps\"; \
         any case, also kbit/mbit/gbit as tc writes them)";

    pub fn bps(self) -> u64 {
        self.0
    }

    /// Bits per second of a unit. Case does not matter ("mbps", "MBPS"), except where a capital
    /// B means bytes ("MBps", "MB"), which rates are never in: refused with that reason (tc's own
    /// "mbps" means megabytes too). tc's "kbit", "mbit", "gbit" and the "bit/s" forms are
    /// accepted. The error is what follows "rate '...' " in the message.
    fn scale_of(unit: &str) -> Result<f64, String> {
        let bytes = unit.contains('B') && (unit.ends_with('B') || unit.chars().any(|c| c.is_ascii_lowercase()));
        if bytes {
            return Err(format!("is in bytes ('{unit}'); rates are in bits: write Kbps, Mbps or Gbps"));
        }
        Ok(match unit.to_ascii_lowercase().as_str() {
            "bps" | "bit/s" | "bit" => 1.0,
            "kbps" | "kbit/s" | "kbit" => 1e3,
            "mbps" | "mbit/s" | "mbit" => 1e6,
            "gbps" | "gbit/s" | "gbit" => 1e9,
            "" => return Err(format!("has no unit: expected {}", Self::ALLOWED)),
            _ => return Err(format!("has an unknown unit '{unit}': expected {}", Self::ALLOWED)),
        })
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let (value, unit) =
            split_number_unit(text).ok_or_else(|| format!("'{text}' is not a rate: expected {}", Self::ALLOWED))?;
        let scale = Self::scale_of(unit).map_err(|why| format!("rate '{text}' {why}"))?;
        if !value.is_finite() {
            return Err(format!("rate '{text}' is not a finite number"));
        }
        let bps = (value * scale).round();
        // Negative, zero and below one bit per second get the same answer.
        if bps < 1.0 {
            return Err(format!("rate '{text}' is not positive: a rate is at least 1bps"));
        }
        if bps > 1e15 {
            return Err(format!("rate '{text}' is above the supported maximum of 1000000Gbps"));
        }
        Ok(Rate(bps as u64))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bps = self.0;
        for (scale, unit) in [(1_000_000_000, "Gbps"), (1_000_000, "Mbps"), (1_000, "Kbps")] {
            if bps.is_multiple_of(scale) {
                return write!(f, "{}{unit}", bps / scale);
            }
        }
        write!(f, "{bps}bps")
    }
}

/// A span of time, stored as integer nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(pub SimDuration);

impl Duration {
    pub const ALLOWED: &'static str = "a number with a unit: ns, us, ms, s, min or h (e.g. \"10ms\")";

    pub fn nanos(self) -> SimDuration {
        self.0
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let (value, unit) =
            split_number_unit(text).ok_or_else(|| format!("'{text}' is not a duration: expected {}", Self::ALLOWED))?;
        let scale = match unit {
            "ns" => 1.0,
            "us" | "µs" => NANOS_PER_MICRO as f64,
            "ms" => NANOS_PER_MILLI as f64,
            "s" => NANOS_PER_SEC as f64,
            "min" => 60.0 * NANOS_PER_SEC as f64,
            "h" => 3600.0 * NANOS_PER_SEC as f64,
            "" => return Err(format!("duration '{text}' has no unit: expected {}", Self::ALLOWED)),
            _ => return Err(format!("duration '{text}' has an unknown unit '{unit}': expected {}", Self::ALLOWED)),
        };
        let value = check_finite_non_negative(value, text, "duration")?;
        let nanos = (value * scale).round();
        if nanos > 1e18 {
            return Err(format!("duration '{text}' is too long (at most about 31 years)"));
        }
        Ok(Duration(nanos as u64))
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns == 0 {
            return write!(f, "0s");
        }
        for (scale, unit) in [(NANOS_PER_SEC, "s"), (NANOS_PER_MILLI, "ms"), (NANOS_PER_MICRO, "us")] {
            if ns.is_multiple_of(scale) {
                return write!(f, "{}{unit}", ns / scale);
            }
        }
        write!(f, "{ns}ns")
    }
}

/// An amount of data in bytes. Decimal prefixes (KB = 1000 B) and binary ones (KiB = 1024 B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl Bytes {
    pub const ALLOWED: &'static str =
        "a number with a unit: B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024), e.g. \"1500B\"";

    fn scale_of(unit: &str) -> Option<f64> {
        Some(match unit {
            "B" => 1.0,
            "KB" | "kB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            "KiB" => 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            _ => return None,
        })
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let (value, unit) =
            split_number_unit(text).ok_or_else(|| format!("'{text}' is not a size: expected {}", Self::ALLOWED))?;
        if unit.is_empty() {
            return Err(format!("size '{text}' has no unit: expected {}", Self::ALLOWED));
        }
        let scale = Self::scale_of(unit)
            .ok_or_else(|| format!("size '{text}' has an unknown unit '{unit}': expected {}", Self::ALLOWED))?;
        let value = check_finite_non_negative(value, text, "size")?;
        Ok(Bytes((value * scale).round() as u64))
    }
}

impl fmt::Display for Bytes {
    /// The largest decimal unit that keeps the number whole ("64MB", "187500B"), as people write sizes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.0;
        for (scale, unit) in [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")] {
            if bytes >= scale && bytes.is_multiple_of(scale) {
                return write!(f, "{}{unit}", bytes / scale);
            }
        }
        write!(f, "{bytes}B")
    }
}

/// A queue capacity: whole packets, bytes, or a multiple of the bandwidth-delay product of the link
/// (its rate times the reference RTT of the flows that cross it; see the scenario docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buffer {
    Packets(u64),
    Bytes(u64),
    Bdp(f64),
}

impl Buffer {
    pub const ALLOWED: &'static str =
        "packets (\"100p\"), a size (\"150KB\") or a multiple of the bandwidth-delay product (\"2BDP\")";

    pub fn parse(text: &str) -> Result<Self, String> {
        let (value, unit) = split_number_unit(text)
            .ok_or_else(|| format!("'{text}' is not a buffer size: expected {}", Self::ALLOWED))?;
        let value = check_finite_non_negative(value, text, "buffer")?;
        match unit {
            "p" | "pkt" | "pkts" | "packets" => {
                if value.fract() != 0.0 {
                    return Err(format!("buffer '{text}' must be a whole number of packets"));
                }
                Ok(Buffer::Packets(value as u64))
            }
            "BDP" | "bdp" => Ok(Buffer::Bdp(value)),
            "" => Err(format!("buffer '{text}' has no unit: expected {}", Self::ALLOWED)),
            _ => match Bytes::scale_of(unit) {
                Some(scale) => Ok(Buffer::Bytes((value * scale).round() as u64)),
                None => Err(format!("buffer '{text}' has an unknown unit '{unit}': expected {}", Self::ALLOWED)),
            },
        }
    }
}

impl fmt::Display for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Buffer::Packets(n) => write!(f, "{n}p"),
            Buffer::Bytes(b) => write!(f, "{}", Bytes(*b)),
            Buffer::Bdp(x) => write!(f, "{x}BDP"),
        }
    }
}

/// Serde glue: every unit type reads from a string and writes its canonical string.
macro_rules! string_unit_serde {
    ($ty:ty, $expecting:expr) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct UnitVisitor;
                impl<'de> de::Visitor<'de> for UnitVisitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: de::Error>(self, text: &str) -> Result<$ty, E> {
                        <$ty>::parse(text).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, value: i64) -> Result<$ty, E> {
                        Err(E::custom(format!("{value} has no unit: expected {}", $expecting)))
                    }
                    fn visit_u64<E: de::Error>(self, value: u64) -> Result<$ty, E> {
                        Err(E::custom(format!("{value} has no unit: expected {}", $expecting)))
                    }
                    fn visit_f64<E: de::Error>(self, value: f64) -> Result<$ty, E> {
                        Err(E::custom(format!("{value} has no unit: expected {}", $expecting)))
                    }
                }
                deserializer.deserialize_any(UnitVisitor)
            }
        }
    };
}

string_unit_serde!(Rate, Rate::ALLOWED);
string_unit_serde!(Duration, Duration::ALLOWED);
string_unit_serde!(Bytes, Bytes::ALLOWED);
string_unit_serde!(Buffer, Buffer::ALLOWED);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_with_decimal_prefixes() {
        assert_eq!(Rate::parse("50Mbps").unwrap().bps(), 50_000_000);
        assert_eq!(Rate::parse("1.5Mbps").unwrap().bps(), 1_500_000);
        assert_eq!(Rate::parse("1Gbps").unwrap().bps(), 1_000_000_000);
        assert_eq!(Rate::parse("64 kbps").unwrap().bps(), 64_000);
        assert_eq!(Rate::parse("1500000bps").unwrap().to_string(), "1500Kbps");
        // Any case, and tc's units: all the same 40 Mbit/s.
        for text in ["40mbps", "40MBPS", "40mbit", "40Mbit/s", "40000kbit", "0.04gbit"] {
            assert_eq!(Rate::parse(text).unwrap().bps(), 40_000_000, "{text}");
        }
    }

    #[test]
    fn bad_rates_name_the_problem() {
        assert!(Rate::parse("-5Mbps").unwrap_err().contains("is not positive: a rate is at least 1bps"));
        assert!(Rate::parse("50MB").unwrap_err().contains("is in bytes ('MB'); rates are in bits"));
        assert!(Rate::parse("50MBps").unwrap_err().contains("is in bytes ('MBps')"));
        assert!(Rate::parse("50 furlongs").unwrap_err().contains("unknown unit 'furlongs'"));
        assert!(Rate::parse("50").unwrap_err().contains("no unit"));
        assert!(Rate::parse("0Mbps").unwrap_err().contains("is not positive: a rate is at least 1bps"));
        assert!(Rate::parse("fast").unwrap_err().contains("not a rate"));
    }

    #[test]
    fn durations_are_integer_nanoseconds() {
        assert_eq!(Duration::parse("10ms").unwrap().nanos(), 10_000_000);
        assert_eq!(Duration::parse("2.5s").unwrap().nanos(), 2_500_000_000);
        assert_eq!(Duration::parse("0.01ms").unwrap().nanos(), 10_000);
        assert_eq!(Duration::parse("2min").unwrap().nanos(), 120 * NANOS_PER_SEC);
        assert_eq!(Duration::parse("1500us").unwrap().to_string(), "1500us");
        assert_eq!(Duration::parse("30ms").unwrap().to_string(), "30ms");
        assert!(Duration::parse("10 parsecs").unwrap_err().contains("unknown unit"));
    }

    #[test]
    fn sizes_and_buffers() {
        assert_eq!(Bytes::parse("1500B").unwrap().0, 1500);
        assert_eq!(Bytes::parse("10MB").unwrap().0, 10_000_000);
        assert_eq!(Bytes::parse("1KiB").unwrap().0, 1024);
        assert_eq!(Buffer::parse("100p").unwrap(), Buffer::Packets(100));
        assert_eq!(Buffer::parse("2BDP").unwrap(), Buffer::Bdp(2.0));
        assert_eq!(Buffer::parse("150KB").unwrap(), Buffer::Bytes(150_000));
        assert!(Buffer::parse("1.5p").unwrap_err().contains("whole number"));
        // Written back in the largest unit that keeps the number whole, and read again alike.
        for (bytes, text) in [(64_000_000, "64MB"), (187_500, "187500B"), (1448, "1448B"), (2_000, "2KB")] {
            assert_eq!(Bytes(bytes).to_string(), text);
            assert_eq!(Bytes::parse(text).unwrap().0, bytes);
        }
        assert_eq!(Buffer::Bytes(150_000).to_string(), "150KB");
    }
}
