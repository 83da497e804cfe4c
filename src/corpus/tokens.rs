//! A class's token stream, for duplicates: the exact hash of its normalised tokens (comments,
//! docstrings and layout dropped) and a MinHash signature of its token 4-shingles; plus the
//! free names it uses (for its dependencies).

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::analysis::metrics::{docstring_node, preorder};

/// Signature length (one-permutation MinHash bins).
pub const BINS: usize = 32;
/// Locality-sensitive hashing: `BANDS` bands of `ROWS` bins each.
pub const BANDS: usize = 8;
pub const ROWS: usize = BINS / BANDS;
const SHINGLE: usize = 4;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    pub exact: i64,
    pub signature: [u32; BINS],
    pub tokens: usize,
    /// Identifiers in name position (not attribute names, not keyword-argument names).
    pub names: BTreeSet<String>,
}

/// splitmix64's finaliser: a cheap, well-mixed 64-bit hash step.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub fn fingerprint(node: Node<'_>, src: &[u8]) -> Fingerprint {
    let mut hashes: Vec<u64> = Vec::new();
    let mut names = BTreeSet::new();
    let mut docstrings = BTreeSet::new();
    preorder(node, |n, cursor| {
        let kind = n.kind();
        if kind == "comment" || docstrings.contains(&n.id()) {
            return false;
        }
        if kind == "block"
            && let Some(doc) = docstring_node(n)
        {
            docstrings.insert(doc.id());
        }
        if kind == "string" || n.child_count() == 0 {
            let text = src.get(n.byte_range()).unwrap_or(&[]);
            hashes.push(crate::corpus::walk::fnv64(text));
            // Attribute names and defined names are not uses of a free name.
            if kind == "identifier" && !matches!(cursor.field_name(), Some("attribute" | "name")) {
                names.insert(String::from_utf8_lossy(text).into_owned());
            }
            return false;
        }
        true
    });
    from_leaf_hashes(hashes, names)
}

/// A fingerprint from the hashes of a class's leaves (in order) and the names it uses: the
/// part both front ends share.
pub(crate) fn from_leaf_hashes(hashes: Vec<u64>, names: BTreeSet<String>) -> Fingerprint {
    let mut exact: u64 = 0;
    for h in &hashes {
        exact = mix(exact ^ h);
    }
    Fingerprint {
        exact: exact as i64,
        signature: signature(&hashes),
        tokens: hashes.len(),
        names,
    }
}

/// One-permutation MinHash with rotation densification (empty bins borrow the next one).
fn signature(tokens: &[u64]) -> [u32; BINS] {
    let mut bins = [u32::MAX; BINS];
    let mut filled = [false; BINS];
    let width = SHINGLE.min(tokens.len().max(1));
    for w in tokens.windows(width) {
        let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
        for t in w {
            h = mix(h ^ t);
        }
        let bin = (h % BINS as u64) as usize;
        let v = (h >> 32) as u32;
        if v <= bins[bin] {
            bins[bin] = v;
            filled[bin] = true;
        }
    }
    if filled.iter().any(|f| *f) {
        for i in 0..BINS {
            if !filled[i] {
                let mut j = (i + 1) % BINS;
                let mut step = 1u32;
                while !filled[j] {
                    j = (j + 1) % BINS;
                    step += 1;
                }
                bins[i] = bins[j].wrapping_add(step.wrapping_mul(0x9e37_79b9));
            }
        }
    }
    bins
}

/// Estimated Jaccard similarity of two signatures.
pub fn similarity(a: &[u32; BINS], b: &[u32; BINS]) -> f64 {
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / BINS as f64
}

/// The hash of band `band` of a signature (its LSH bucket).
pub fn band_hash(sig: &[u32; BINS], band: usize) -> u64 {
    let mut h = band as u64;
    for v in &sig[band * ROWS..(band + 1) * ROWS] {
        h = mix(h ^ u64::from(*v));
    }
    h
}

pub fn to_blob(sig: &[u32; BINS]) -> Vec<u8> {
    sig.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn from_blob(blob: &[u8]) -> Option<[u32; BINS]> {
    if blob.len() != BINS * 4 {
        return None;
    }
    let mut out = [0u32; BINS];
    for (i, c) in blob.chunks_exact(4).enumerate() {
        out[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::parse_tree;

    fn fp(src: &str) -> Fingerprint {
        let tree = parse_tree(src).unwrap();
        let class = tree.root_node().named_child(0).unwrap();
        fingerprint(class, src.as_bytes())
    }

    #[test]
    fn layout_comments_and_docstrings_do_not_change_the_exact_hash() {
        let a = fp(
            "class A:\n    \"\"\"Doc.\"\"\"\n    def f(self, x):\n        return x + 1  # one\n",
        );
        let b = fp("class A:\n\n    def f(self,   x):\n        # nothing\n        return x+1\n");
        let c = fp("class A:\n    def f(self, x):\n        return x + 2\n");
        assert_eq!(a.exact, b.exact);
        assert_ne!(a.exact, c.exact);
        assert!(similarity(&a.signature, &c.signature) > 0.3);
        assert_eq!(similarity(&a.signature, &b.signature), 1.0);
    }

    #[test]
    fn names_are_free_identifiers_only() {
        let f = fp("class A(Base):\n    def f(self):\n        return os.path.join(x=re.sub(1))\n");
        let names: Vec<&str> = f.names.iter().map(String::as_str).collect();
        assert_eq!(names, ["Base", "os", "re", "self"]);
    }

    #[test]
    fn blobs_round_trip() {
        let f = fp("class A:\n    pass\n");
        assert_eq!(from_blob(&to_blob(&f.signature)), Some(f.signature));
        assert_eq!(from_blob(&[1, 2]), None);
    }
}
