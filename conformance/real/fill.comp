#version 450
// Compute smoke test: every invocation writes a value derived from its index.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Out { uint data[]; };
layout(push_constant) uniform Push { uint mul; uint add; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    data[i] = i * pc.mul + pc.add;
}
