//! The one place where coordinator errors become gRPC statuses.

use golomb_proto::SpecError;
use tonic::Status;

use crate::store::StoreError;

impl From<StoreError> for Status {
    fn from(err: StoreError) -> Status {
        match err {
            StoreError::NoJob(_) | StoreError::NoUnit(_) | StoreError::NoWorker(_) => {
                Status::not_found(err.to_string())
            }
            StoreError::Foreign { .. } | StoreError::Newer { .. } => Status::failed_precondition(err.to_string()),
            StoreError::Sqlite(_) | StoreError::StoredSpec { .. } => Status::internal(err.to_string()),
        }
    }
}

/// A job spec that failed validation: the caller's fault.
pub fn invalid_spec(err: SpecError) -> Status {
    Status::invalid_argument(format!("invalid job spec: {err}"))
}
