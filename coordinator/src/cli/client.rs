//! Talking to a running coordinator: the connection the client commands
//! share, and refusals turned into errors that say what the coordinator said.

use std::time::Duration;

use golomb_proto::auth::{SendToken, load_token};
use golomb_proto::pb;
use golomb_proto::pb::jobs_client::JobsClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use super::args::ClientArgs;
use super::output::OutputFile;

/// A `Jobs` client that sends the token.
pub type Client = JobsClient<InterceptedService<Channel, SendToken>>;

/// Connects to the coordinator named by `args`.
pub async fn connect(args: &ClientArgs) -> anyhow::Result<Client> {
    let token = load_token(args.token_file.as_deref())?;
    let url = args.coordinator()?.url;
    let channel = golomb_proto::connect::endpoint(&url, args.tls_ca.as_deref())?
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .map_err(|err| {
            let text = golomb_proto::process::error_text(&err);
            match golomb_proto::connect::certificate_problem(&text, args.tls_ca.as_deref()) {
                Some(problem) => anyhow::anyhow!("cannot talk to the coordinator at {url}: {problem}"),
                None => anyhow::Error::new(err).context(format!(
                    "cannot reach the coordinator at {url}: is `golomb serve` running there? \
                     (--coordinator or GOLOMB_COORDINATOR names another)"
                )),
            }
        })?;
    Ok(JobsClient::with_interceptor(channel, SendToken::new(token.as_deref())?)
        .max_decoding_message_size(golomb_proto::connect::MAX_RESPONSE_BYTES))
}

/// A refused call as an error that says what the coordinator said, or, when
/// the connection broke, that the coordinator went away mid-call.
pub fn refused(status: tonic::Status) -> anyhow::Error {
    use tonic::Code;
    let broken = matches!(status.code(), Code::Unknown | Code::Unavailable | Code::Cancelled)
        && (status.message().contains("transport") || status.message().contains("connection"));
    if let Some(problem) =
        golomb_proto::connect::certificate_problem(&golomb_proto::process::status_text(&status), None)
    {
        return anyhow::anyhow!("{problem}");
    }
    if broken {
        return anyhow::anyhow!(
            "lost the connection to the coordinator during the call ({}): it may have stopped, or it serves \
             TLS and was called on http:// (use https://); check it with `golomb status` (a submit may or may not \
             have been stored)",
            status.message()
        );
    }
    if status.code() == Code::Cancelled && status.message() == "operation was canceled" {
        // Not an answer: the connection closed under the call, as a TLS coordinator closes a plaintext one.
        return anyhow::anyhow!(
            "the coordinator closed the connection without answering: it may be serving as many connections as \
             it takes (serve --max-connections; its log says \"connection limit reached\"), or, if it serves TLS \
             (serve --tls-cert), give its address as https://HOST:PORT (with --tls-ca for a private CA)"
        );
    }
    anyhow::anyhow!("the coordinator said: {} ({:?})", status.message(), status.code())
}

/// The single-threaded runtime a client command runs its calls on.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?)
}

/// Connects as `args` says and runs `call` with the client on a fresh runtime.
pub fn with_client<T>(
    args: &ClientArgs,
    call: impl AsyncFnOnce(&mut Client) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    runtime()?.block_on(async {
        let mut client = connect(args).await?;
        call(&mut client).await
    })
}

/// Fetches a job's proof from the coordinator and writes it to `file`; returns the checker's leaf count.
pub async fn save_proof(client: &mut Client, job: u64, file: &mut OutputFile) -> anyhow::Result<u64> {
    let proof = client.proof(pb::ProofRequest { job_id: job }).await.map_err(refused)?.into_inner();
    file.write_all(proof.json.as_bytes())?;
    Ok(proof.leaves)
}
