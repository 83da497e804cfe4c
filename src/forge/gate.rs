//! Gates on a forged task's evidence (`--gate branch=0.9,mutation=0.8`): a task below them is
//! kept as *below gate* with its evidence, so curation decides.

use serde::Serialize;

use super::task::Evidence;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Gates {
    /// Least branch coverage (0–1); line coverage for a class without branches.
    pub branch: f64,
    /// Least mutation score (0–1).
    pub mutation: f64,
}

impl Default for Gates {
    fn default() -> Self {
        Gates {
            branch: 0.9,
            mutation: 0.8,
        }
    }
}

impl std::str::FromStr for Gates {
    type Err = String;
    fn from_str(s: &str) -> Result<Gates, String> {
        let mut g = Gates::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}`: expected NAME=VALUE, e.g. branch=0.9"))?;
            let v: f64 = v
                .trim()
                .parse()
                .map_err(|_| format!("`{v}` is not a number"))?;
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("{k}={v}: a gate is a fraction from 0 to 1"));
            }
            match k.trim() {
                "branch" => g.branch = v,
                "mutation" => g.mutation = v,
                other => return Err(format!("unknown gate `{other}` (branch, mutation)")),
            }
        }
        Ok(g)
    }
}

/// Why a task is below the gates (empty: it passes them). An unmeasured figure is a reason
/// too: a gate is never passed by default.
pub fn shortfalls(ev: &Evidence, g: &Gates) -> Vec<String> {
    let mut out = Vec::new();
    match ev.branch.or(ev.line) {
        Some(c) if c / 100.0 + 1e-12 >= g.branch => {}
        Some(c) => out.push(format!(
            "{} coverage {c:.1}% < {:.0}%",
            if ev.branch.is_some() {
                "branch"
            } else {
                "line"
            },
            g.branch * 100.0
        )),
        None => out.push("coverage not measured".into()),
    }
    match ev.mutation {
        Some(m) if m + 1e-12 >= g.mutation => {}
        Some(m) => out.push(format!(
            "mutation score {:.1}% < {:.0}%",
            m * 100.0,
            g.mutation * 100.0
        )),
        None if g.mutation > 0.0 => out.push("mutation score not measured".into()),
        None => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_parse_and_judge() {
        let g: Gates = "branch=0.8, mutation=0".parse().unwrap();
        assert_eq!((g.branch, g.mutation), (0.8, 0.0));
        assert!("branch=2".parse::<Gates>().is_err());
        assert!(
            "speed=1"
                .parse::<Gates>()
                .unwrap_err()
                .contains("unknown gate")
        );
        let mut ev = Evidence {
            branch: Some(85.0),
            ..Evidence::default()
        };
        assert!(shortfalls(&ev, &g).is_empty());
        ev.branch = None;
        ev.line = Some(70.0);
        assert_eq!(shortfalls(&ev, &g), ["line coverage 70.0% < 80%"]);
        assert_eq!(
            shortfalls(&Evidence::default(), &Gates::default()),
            ["coverage not measured", "mutation score not measured"]
        );
    }
}
