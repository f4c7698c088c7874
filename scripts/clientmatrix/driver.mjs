// driver.mjs runs one real client against one stream that streamtap
// replay serves, and prints what the client made of it as one JSON line:
// {"ok":true,"text":…,"calls":[{"name":…,"args":…}],"requests":N} (the
// MCP client adds "onerror") or
// {"ok":false,"error":{"name":…,"message":…},"requests":N}. A client that
// never returns is killed by the harness (main.go) and reported as a hang;
// a process that dies without printing is a crash.
//
// Usage: node driver.mjs '{"client":"openai-chat","baseURL":"http://127.0.0.1:PORT","tools":["get_weather"]}'
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { streamText, tool, jsonSchema, AbstractChat, DefaultChatTransport, isToolUIPart, getToolName } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const spec = JSON.parse(process.argv[2]);
let requests = 0;
const countingFetch = (url, init) => {
  requests++;
  return globalThis.fetch(url, init);
};
const messages = [{ role: "user", content: "What is the weather in Paris?" }];
const params = { type: "object", properties: {}, additionalProperties: true };

function out(obj) {
  process.stdout.write(JSON.stringify({ ...obj, requests }) + "\n");
}

function errorOf(e) {
  const name = e?.constructor?.name && e.constructor.name !== "Object" ? e.constructor.name : String(e?.name ?? typeof e);
  let message = String(e?.message ?? e);
  if (e?.cause?.message) message += " (cause: " + e.cause.message + ")";
  return { name, message: message.slice(0, 300) };
}

function parsedArgs(s) {
  if (typeof s !== "string") return s;
  try {
    return JSON.parse(s);
  } catch {
    return { "(unparsed)": s };
  }
}

async function openaiChat() {
  const client = new OpenAI({ apiKey: "sk-test", baseURL: spec.baseURL + "/v1", fetch: countingFetch });
  const stream = client.chat.completions.stream({
    model: "gpt-4o-mini",
    messages,
    tools: spec.tools.map((name) => ({ type: "function", function: { name, parameters: params } })),
  });
  const done = await stream.finalChatCompletion();
  const msg = done.choices[0]?.message ?? {};
  return {
    text: msg.content ?? "",
    calls: (msg.tool_calls ?? []).map((c) => ({ name: c.function?.name, args: parsedArgs(c.function?.arguments) })),
    finish: done.choices[0]?.finish_reason ?? null,
  };
}

async function openaiResponses() {
  const client = new OpenAI({ apiKey: "sk-test", baseURL: spec.baseURL + "/v1", fetch: countingFetch });
  const stream = client.responses.stream({
    model: "gpt-4.1",
    input: messages,
    tools: spec.tools.map((name) => ({ type: "function", name, parameters: params, strict: false })),
  });
  const r = await stream.finalResponse();
  let text = "";
  const calls = [];
  for (const item of r.output ?? []) {
    if (item.type === "message") for (const c of item.content ?? []) if (c.type === "output_text") text += c.text;
    if (item.type === "function_call") calls.push({ name: item.name, args: parsedArgs(item.arguments) });
  }
  return { text, calls, finish: r.status ?? null };
}

async function anthropic() {
  const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: spec.baseURL, fetch: countingFetch });
  const stream = client.messages.stream({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    messages,
    tools: spec.tools.map((name) => ({ name, input_schema: params })),
  });
  const m = await stream.finalMessage();
  let text = "";
  const calls = [];
  for (const b of m.content ?? []) {
    if (b.type === "text") text += b.text;
    if (b.type === "tool_use") calls.push({ name: b.name, args: b.input });
  }
  return { text, calls, finish: m.stop_reason ?? null };
}

async function aiSDK(model) {
  const tools = Object.fromEntries(spec.tools.map((name) => [name, tool({ description: name, inputSchema: jsonSchema(params) })]));
  const result = streamText({ model, messages, tools, onError: () => {} });
  let text = "";
  const calls = [];
  let finish = null;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        text += part.text ?? part.delta ?? "";
        break;
      case "tool-call":
        calls.push({ name: part.toolName, args: part.input ?? part.args });
        break;
      case "error":
        throw part.error;
      case "finish":
        finish = part.finishReason ?? null;
        break;
    }
  }
  return { text, calls, finish };
}

// chatState is the least ChatState AbstractChat needs: what @ai-sdk/react's
// useChat keeps in React state, kept in plain fields.
class chatState {
  status = "ready";
  error = undefined;
  messages = [];
  pushMessage = (m) => {
    this.messages = this.messages.concat(m);
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (i, m) => {
    this.messages = [...this.messages.slice(0, i), m, ...this.messages.slice(i + 1)];
  };
  snapshot = (v) => structuredClone(v);
}

// aisdkUI is the app leg: the AI SDK's own chat client, as useChat runs it
// without React (AbstractChat with DefaultChatTransport, which posts to
// /api/chat and parses the UI message stream). sendMessage never throws: a
// failure is status "error" with chat.error, as a page would show it.
async function aisdkUI() {
  let finish = null;
  const chat = new (class extends AbstractChat {})({
    state: new chatState(),
    transport: new DefaultChatTransport({ api: spec.baseURL + "/api/chat", fetch: countingFetch }),
    onFinish: ({ finishReason }) => {
      finish = finishReason ?? null;
    },
  });
  await chat.sendMessage({ text: messages[0].content });
  if (chat.status === "error") throw chat.error;
  const m = chat.lastMessage;
  if (m?.role !== "assistant") return { text: "", calls: [], finish };
  let text = "";
  const calls = [];
  for (const p of m.parts) {
    if (p.type === "text") text += p.text;
    if (isToolUIPart(p)) calls.push({ name: getToolName(p), args: p.input, state: p.state, output: p.output ?? p.errorText });
  }
  return { text, calls, finish };
}

// mcp is an MCP client calling one tool: the TypeScript SDK's Client over
// StreamableHTTPClientTransport, against a replayed session (initialize,
// notifications/initialized, its GET, then the tools/call). Its result is
// the tool result's text (content, then structuredContent); its finish says
// result or isError, how many progress notifications reached onprogress,
// and which errors onerror reported (the SDK reports a message it cannot
// parse there and reads on); onerror holds their messages.
async function mcp() {
  const transport = new StreamableHTTPClientTransport(new URL(spec.baseURL + "/mcp"), { fetch: countingFetch });
  const client = new Client({ name: "streamtap-client-matrix", version: "1.0.0" });
  const errors = [];
  client.onerror = (e) => errors.push(errorOf(e));
  let progress = 0;
  await client.connect(transport);
  const r = await client.callTool({ name: spec.tools[0], arguments: spec.arguments }, undefined, {
    onprogress: () => {
      progress++;
    },
  });
  let text = (r.content ?? []).map((c) => (c.type === "text" ? c.text : "[" + c.type + "]")).join("\n");
  if (r.structuredContent !== undefined) text += " " + JSON.stringify(r.structuredContent);
  let finish = (r.isError ? "isError" : "result") + ", " + progress + " progress";
  if (errors.length > 0) finish += ", onerror " + errors.map((e) => e.name).join(", ");
  const onerror = errors.map((e) => e.name + ": " + e.message.replace(/\s+/g, " ").slice(0, 160)).join("; ");
  return { text, calls: [], finish, onerror };
}

const clients = {
  mcp,
  "openai-chat": openaiChat,
  "openai-responses": openaiResponses,
  anthropic,
  "ai-openai-chat": () => aiSDK(createOpenAI({ apiKey: "sk-test", baseURL: spec.baseURL + "/v1", fetch: countingFetch }).chat("gpt-4o-mini")),
  "ai-openai-responses": () =>
    aiSDK(createOpenAI({ apiKey: "sk-test", baseURL: spec.baseURL + "/v1", fetch: countingFetch }).responses("gpt-4.1")),
  "ai-anthropic": () =>
    aiSDK(createAnthropic({ apiKey: "sk-ant-test", baseURL: spec.baseURL + "/v1", fetch: countingFetch })("claude-sonnet-4-5")),
  "aisdk-ui": aisdkUI,
};

// The harness times a hang from here: starting Node and importing the
// clients is not the client's time.
process.stderr.write("ready\n");
try {
  const r = await clients[spec.client]();
  out({ ok: true, ...r });
} catch (e) {
  out({ ok: false, error: errorOf(e) });
}
process.exit(0);
