"""What the p4lang tutorials' p4runtime_lib does, with nothing but its imports: bmv2.py's
device config (p4.tmp.P4DeviceConfig around the compiler's .json), switch.py's
SetForwardingPipelineConfig and helper.py's ipv4_lpm entries of basic.p4.

    python tutorials_client.py ADDR DEVICE_ID P4INFO.txtpb PROG.json IP,MAC,PORT...
"""
import faulthandler
import queue
import sys

import grpc
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.tmp import p4config_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

faulthandler.dump_traceback_later(60, exit=True)      # a hung client dumps its threads
addr, device_id, p4info_path, json_path, *routes = sys.argv[1:]
device_id = int(device_id)
p4info = p4info_pb2.P4Info()
with open(p4info_path) as f:
    text_format.Merge(f.read(), p4info)
device_config = p4config_pb2.P4DeviceConfig()
device_config.reassign = True
with open(json_path) as f:
    device_config.device_data = f.read().encode("utf-8")
channel = grpc.insecure_channel(addr)
stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
requests = queue.Queue()
stream = stub.StreamChannel(iter(requests.get, None))
arbitration = p4runtime_pb2.StreamMessageRequest()
arbitration.arbitration.device_id = device_id
arbitration.arbitration.election_id.low = 1
requests.put(arbitration)
next(stream)
request = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=device_id)
request.election_id.low = 1
request.config.p4info.CopyFrom(p4info)
request.config.p4_device_config = device_config.SerializeToString()
request.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
stub.SetForwardingPipelineConfig(request)
table = next(t for t in p4info.tables if t.preamble.name == "MyIngress.ipv4_lpm")
action = next(a for a in p4info.actions if a.preamble.name == "MyIngress.ipv4_forward")
write = p4runtime_pb2.WriteRequest(device_id=device_id)
write.election_id.low = 1
for route in routes:
    ip, mac, port = route.split(",")
    entry = write.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
    entry.table_id = table.preamble.id
    match = entry.match.add(field_id=table.match_fields[0].id)
    match.lpm.value = bytes(int(b) for b in ip.split("."))
    match.lpm.prefix_len = 32
    entry.action.action.action_id = action.preamble.id
    entry.action.action.params.add(param_id=1, value=bytes.fromhex(mac.replace(":", "")))
    entry.action.action.params.add(param_id=2, value=bytes([int(port)]))
stub.Write(write)
requests.put(None)            # p4runtime_lib's shutdown(): end the stream, cancel it
stream.cancel()
channel.close()
print("programmed")
