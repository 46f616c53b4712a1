//! The one place where coordinator errors become gRPC statuses.

use golomb_proto::SpecError;
use tonic::Status;

use crate::store::StoreError;

/// The longest message a status carries: it travels in an HTTP/2 header,
/// and an oversized one would turn a clear refusal into a protocol error.
const MAX_MESSAGE: usize = 2000;

/// `text`, cut to [`MAX_MESSAGE`] bytes (at a character boundary) with a note.
pub fn bounded(text: String) -> String {
    if text.len() <= MAX_MESSAGE {
        return text;
    }
    let mut cut = MAX_MESSAGE;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..cut], text.len())
}

impl From<StoreError> for Status {
    fn from(err: StoreError) -> Status {
        let message = bounded(err.to_string());
        match err {
            StoreError::NoJob(_) | StoreError::NoUnit(_) | StoreError::NoWorker(_) | StoreError::NoSuchWorker(_) => {
                Status::not_found(message)
            }
            StoreError::Foreign { .. }
            | StoreError::Newer { .. }
            | StoreError::NotHolder(_)
            | StoreError::NotGivenBack { .. }
            | StoreError::JobState { .. } => Status::failed_precondition(message),
            StoreError::WrongReport(_) | StoreError::Import { .. } | StoreError::EarlySplit { .. } => {
                Status::invalid_argument(message)
            }
            StoreError::Sqlite(_)
            | StoreError::Storage { .. }
            | StoreError::Corrupt { .. }
            | StoreError::StoredSpec { .. } => Status::internal(message),
        }
    }
}

/// A job spec that failed validation: the caller's fault.
pub fn invalid_spec(err: SpecError) -> Status {
    Status::invalid_argument(bounded(format!("invalid job spec: {err}")))
}
