/**
 * The largest WebSocket frame the browser host reads (16 MiB); a larger one closes the socket
 * (1009) before any of it is parsed. Electron's IPC has no such limit, but the contract is one
 * for both transports: every input fits a frame.
 */
export const WS_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * Base64 characters one call may carry in all (the attachments of a question, a previewed
 * file, a bundle to verify): the frame less 64 KiB for the rest of the request. About 11.9 MiB
 * of file bytes; layers go in chunks (layers.uploadChunk) and have no such bound.
 */
export const RPC_MAX_BASE64 = WS_MAX_FRAME_BYTES - 64 * 1024;

/** RPC_MAX_BASE64 in file bytes, for messages. */
export const RPC_MAX_FILE_BYTES = Math.floor(RPC_MAX_BASE64 / 4) * 3;
