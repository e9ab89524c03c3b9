/*
 * Wine lane only — never shipped; loaded with `--import` in NODE_OPTIONS (so every Node process of the run has it) under Wine 8.
 * Wine lacks the TCP keep-alive socket option at connect time, so `fetch` (undici calls socket.setKeepAlive right
 * after net.connect, before the handle is connected) fails with `connect UNKNOWN`: node's lib/net.js
 * Socket.prototype.setKeepAlive stores the wish on an unconnected socket and libuv applies it inside
 * uv_tcp_connect, whose error then fails the connect. Deferring the call until 'connect' keeps the request (on a
 * connected handle its result is ignored, as node does), so nothing changes what the product does on Windows.
 */
import net from 'node:net';

const original = net.Socket.prototype.setKeepAlive;
net.Socket.prototype.setKeepAlive = function setKeepAliveAfterConnect(...args) {
  if (this.connecting || !this._handle) {
    this.once('connect', () => original.apply(this, args));
    return this;
  }
  return original.apply(this, args);
};
