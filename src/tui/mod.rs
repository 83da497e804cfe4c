//! The terminal UI (placeholder until the TUI lands).

use crate::dataset::Dataset;
use crate::dataset::predictions::DepFile;
use crate::depcheck::GroundTruth;

/// Everything the TUI needs to open.
pub struct TuiOptions {
    pub dataset: Dataset,
    pub predictions: Option<DepFile>,
    pub truth: GroundTruth,
    /// Theme name from `--theme`, overriding the config file.
    pub theme: Option<String>,
}

pub fn run(_opts: TuiOptions) -> anyhow::Result<()> {
    anyhow::bail!("the TUI is not built yet")
}
