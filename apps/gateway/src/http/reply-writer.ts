import type { ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import type { HttpReply } from '@app/contracts';
import { mergeSetCookie } from '../auth/cookies.js';
import { DownloadServer } from '../downloads/download-server.js';
import { sendHtml } from '../pages/page-headers.js';
import { endAtTurnEnd } from './end-of-turn.js';
import { sendJson, sendText, serializeCookie } from './http-io.js';

/** Writes an app's reply (as its endpoint's `reply` shaped it) to the HTTP response. */
@Injectable()
export class ReplyWriter {
  constructor(private readonly downloads: DownloadServer) {}

  write(res: ServerResponse, reply: HttpReply, head: boolean): void {
    if ('cookies' in reply && reply.cookies?.length)
      res.setHeader('Set-Cookie', mergeSetCookie(res.getHeader('Set-Cookie'), reply.cookies.map(serializeCookie)));
    if ('headers' in reply && reply.headers) {
      const headers = reply.headers;
      for (const name in headers) res.setHeader(name, headers[name]);
    }
    switch (reply.kind) {
      case 'json':
        return sendJson(res, reply.status, reply.body, head);
      case 'text':
        return sendText(res, reply.status, reply.body, reply.contentType, head);
      case 'html':
        return sendHtml(res, reply.status, reply.body, head, reply.headers);
      case 'empty':
        res.statusCode = reply.status;
        endAtTurnEnd(res);
        return;
      case 'redirect':
        res.statusCode = reply.status;
        res.setHeader('Location', reply.location);
        endAtTurnEnd(res);
        return;
      case 'download-link':
        res.statusCode = 302;
        res.setHeader('Location', this.downloads.linkFor(reply.file));
        res.setHeader('Cache-Control', 'no-store');
        endAtTurnEnd(res);
        return;
      case 'not-modified':
        res.statusCode = 304;
        endAtTurnEnd(res);
        return;
      case 'file-head':
        res.statusCode = 200;
        res.setHeader('Content-Length', reply.file.sizeBytes);
        res.setHeader('Content-Type', reply.file.contentType);
        res.setHeader('ETag', `"${reply.file.sha256}"`);
        res.setHeader('Last-Modified', new Date(reply.file.lastModified).toUTCString());
        endAtTurnEnd(res);
        return;
    }
  }
}
