//! Metrics over model outputs; `deps` scores predicted vs ground-truth method dependencies.
pub mod causes;
pub mod deps;
pub mod fingerprint;
pub mod functional;
