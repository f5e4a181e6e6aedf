/**
 * Shaders of the GPU point renderer. Each point is one GL point sprite: the vertex shader maps
 * its position (relative to the data's origin) to clip space with one 2x2 matrix and an offset
 * worked out on the CPU in double precision; the fragment shader cuts a disc with a light rim
 * out of the sprite and smooths its edge over one pixel.
 */
export const POINT_VERTEX_SHADER = `
attribute vec2 a_position;
uniform vec4 u_matrix;
uniform vec2 u_offset;
uniform float u_size;
varying float v_size;
void main() {
  v_size = u_size;
  gl_Position = vec4(mat2(u_matrix.xy, u_matrix.zw) * a_position + u_offset, 0.0, 1.0);
  gl_PointSize = u_size;
}
`;

export const POINT_FRAGMENT_SHADER = `
precision mediump float;
uniform vec4 u_fill;
uniform vec4 u_rim;
uniform float u_rimWidth;
varying float v_size;
void main() {
  float radius = 0.5 * v_size;
  float r = length(gl_PointCoord - 0.5) * v_size;
  if (r > radius) discard;
  vec4 colour = r > radius - u_rimWidth ? u_rim : u_fill;
  float alpha = colour.a * clamp(radius - r, 0.0, 1.0);
  gl_FragColor = vec4(colour.rgb * alpha, alpha);
}
`;
