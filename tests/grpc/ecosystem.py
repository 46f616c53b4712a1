"""Calls a Golomb coordinator as a generic gRPC client does, with no file
of ours: the standard health service (as a Kubernetes probe or a load
balancer would), then server reflection in both versions (as grpcurl
would), and finally a call of golomb.v1.Jobs/ListJobs whose message types
come from reflection alone.

    python3 ecosystem.py HOST:PORT TOKEN

Prints one line per check; exits non-zero on the first that fails.
"""

import sys

import grpc
from google.protobuf import descriptor_pool, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase


def main():
    target, token = sys.argv[1], sys.argv[2]
    channel = grpc.insecure_channel(target)

    health = health_pb2_grpc.HealthStub(channel)
    for service in ["", "golomb.v1.Jobs", "golomb.v1.Work"]:
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=20)
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)
        print(f"health {service or '(server)'}: {status}")
        assert answer.status == health_pb2.HealthCheckResponse.SERVING, status
    try:
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=20)
        raise AssertionError("an unknown service was reported")
    except grpc.RpcError as err:
        print(f"health no.such.Service: {err.code().name}")
        assert err.code() == grpc.StatusCode.NOT_FOUND, err

    # v1alpha through grpcio-reflection's own client.
    database = ProtoReflectionDescriptorDatabase(channel)
    services = sorted(database.get_services())
    print("reflection v1alpha services: " + " ".join(services))
    for name in ["golomb.v1.Jobs", "golomb.v1.Work", "grpc.health.v1.Health"]:
        assert name in services, services

    # v1 (what grpcurl asks first): the same messages on the v1 path.
    list_v1 = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    answers = list(list_v1(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=20))
    services_v1 = sorted(s.name for s in answers[0].list_services_response.service)
    print("reflection v1 services: " + " ".join(services_v1))
    assert "golomb.v1.Jobs" in services_v1, services_v1

    # A real call whose types come from reflection only.
    pool = descriptor_pool.DescriptorPool(database)
    method = pool.FindServiceByName("golomb.v1.Jobs").methods_by_name["ListJobs"]
    request_type = message_factory.GetMessageClass(method.input_type)
    response_type = message_factory.GetMessageClass(method.output_type)
    list_jobs = channel.unary_unary(
        "/golomb.v1.Jobs/ListJobs",
        request_serializer=request_type.SerializeToString,
        response_deserializer=response_type.FromString,
    )
    jobs = list_jobs(request_type(), metadata=[("authorization", f"Bearer {token}")], timeout=20)
    fields = [f.name for f in method.output_type.fields]
    listed = getattr(jobs, fields[0])
    print(f"ListJobs through reflection: {len(listed)} job(s): " + " ".join(str(j.job_id) for j in listed))


if __name__ == "__main__":
    main()
