/**
 * The largest WebSocket frame the browser host reads (16 MiB); a larger one closes the socket
 * (1009) before any of it is parsed. Electron's IPC has no such limit, but the contract is one
 * for both transports: every input fits a frame.
 */
export const WS_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * Base64 characters one call may carry in all (the inline attachments of a question, a previewed
 * file, a bundle to verify): the frame less 64 KiB for the rest of the request. About 11.9 MiB
 * of file bytes; larger files go in chunks (uploads.stageChunk, layers.uploadChunk).
 */
export const RPC_MAX_BASE64 = WS_MAX_FRAME_BYTES - 64 * 1024;

/** RPC_MAX_BASE64 in file bytes, for messages. */
export const RPC_MAX_FILE_BYTES = Math.floor(RPC_MAX_BASE64 / 4) * 3;

/** File bytes per chunk of a staged upload: 4 MiB (5.3 MB as base64) keeps each frame well under its limit. */
export const UPLOAD_CHUNK_BYTES = 4 * 1024 * 1024;
/** Base64 characters of one chunk. */
export const UPLOAD_CHUNK_BASE64 = Math.ceil(UPLOAD_CHUNK_BYTES / 3) * 4;

/**
 * What one question may carry: the bundled service's own multipart limits (20 MiB a file, 10
 * files and images). Files too large for one call are staged first (uploads.stageStart).
 */
export const ATTACHMENT_MAX_FILE_BYTES = 20 * 1024 * 1024;
export const ATTACHMENT_MAX_FILES = 10;
