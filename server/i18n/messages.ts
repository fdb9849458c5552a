/**
 * Every message the server writes into an `{error}` body or a listing, in English and Simplified Chinese (the
 * reference viewer's two languages). Parser details (`file:line:column: problem`) stay English inside `{problem}`:
 * they quote the file, and translating them would make bug reports harder to match with the source.
 */

export type Lang = 'en' | 'zh-CN';
export const langs: readonly Lang[] = ['en', 'zh-CN'];

const en = {
  missingParam: 'missing query parameter "{name}"',
  badParam: 'query parameter "{name}" must be {expected}',
  badSearch: 'search text not usable: {problem}',
  badPath: 'run/tag "{value}" is not allowed: {reason}',
  outsideLogdir: '"{value}" resolves outside the log directory',
  unknownRun: 'no run "{run}" in the log directory',
  unknownTag: 'no graph file "{tag}" in run "{run}"',
  unknownNode: 'no node "{node}" on the {side} side of {file}',
  noBenchSide: '{file} is a single-graph (build) file: it has no bench side',
  fileUnreadable: '{file}: {problem}',
  fileNote: '{file} opens, with a note: {note}',
  fileChanged: '{file} changed on disk while it was being read; reload to open the new version',
  unknownGraph: '{file} holds no graph for step {step}, rank {rank}',
  notFound: 'not found: {path}',
  appNotBuilt: 'the web app is not built ({dir} is missing): run "npm run build"',
  badHost: 'host "{host}" is not allowed; open the viewer through localhost or start it with --bind_all',
  internal: 'internal server error: {problem}',
  tooMuchWork: '{file}: this request needs more than {ms} ms of work and was stopped so that other requests are not held up; narrow it (a longer query, a smaller limit)',
  malformedRequest: 'malformed HTTP request',
  headersTooLarge: 'request headers too large',
  requestTimeout: 'the request was not received in time',
  readOnly: 'this server is read-only (started with --read_only, or bound to other machines without --writable): nothing was written',
  writeNotJson: 'a write request must be a POST with Content-Type: application/json',
  crossSite: 'write refused: the request comes from another site ({origin})',
  badBody: 'request body: {problem}',
  bodyTooLarge: 'request body larger than {limit}',
  overlayUnknown: 'overlay "{id}" is not held by this server (it restarted or dropped it, or the file changed): register it again',
  viewUnknown: 'view "{id}" is not held by this server (it restarted or dropped it, or the file changed): send its ids again',
  overlayNotCompare: '{file} is a single-graph (build) file: it has no nodes to match',
  staleSave: '{file} changed since it was opened: reload it, then save again',
  targetExists: '{file} already exists: save again with replace to overwrite it',
  badConfigName: 'match config "{file}": {reason}',
  configUnreadable: 'match config {file}: {problem}',
  writeFailed: 'cannot write {file}: {problem}',
  overlayTooLarge: '{file}: the {side} side has {count} nodes, more than this list walks (at most {max}); use search or the filters instead',
  shardsMissing: '{file}: shard {missing} of {count} missing; the graph shows the steps and ranks of the other shards',
  shardLeftOut: '{file} is left out of its shard set: {problem}{more}; the graph shows the other shards',
  shardSetSave: '{file} is a set of shards served as one graph: merge them (probeboard merge) to save a matched file',
} as const;

export type MessageKey = keyof typeof en;

const zhCN: Record<MessageKey, string> = {
  missingParam: '缺少查询参数 "{name}"',
  badParam: '查询参数 "{name}" 必须是{expected}',
  badSearch: '搜索内容无法使用：{problem}',
  badPath: '不允许的 run/tag "{value}"：{reason}',
  outsideLogdir: '"{value}" 指向日志目录之外',
  unknownRun: '日志目录中没有 run "{run}"',
  unknownTag: 'run "{run}" 中没有图文件 "{tag}"',
  unknownNode: '{file} 的 {side} 侧没有节点 "{node}"',
  noBenchSide: '{file} 是单图（build）文件，没有标杆（bench）侧',
  fileUnreadable: '{file}：文件无法读取（{problem}）',
  fileNote: '{file} 可以打开，但有提示：{note}',
  fileChanged: '{file} 在读取过程中被修改；请刷新以打开新版本',
  unknownGraph: '{file} 中没有 step {step}、rank {rank} 的图',
  notFound: '未找到：{path}',
  appNotBuilt: '网页应用尚未构建（缺少 {dir}）：请运行 "npm run build"',
  badHost: '不允许的主机名 "{host}"；请通过 localhost 访问，或使用 --bind_all 启动',
  internal: '服务器内部错误：{problem}',
  tooMuchWork: '{file}：该请求所需工作超过 {ms} 毫秒，已被中止以免阻塞其他请求；请缩小范围（更长的查询词、更小的 limit）',
  malformedRequest: '格式错误的 HTTP 请求',
  headersTooLarge: '请求头过大',
  requestTimeout: '未能及时收到完整请求',
  readOnly: '服务器为只读模式（以 --read_only 启动，或未加 --writable 时对其他机器开放）：未写入任何内容',
  writeNotJson: '写入请求必须是 POST，且 Content-Type 为 application/json',
  crossSite: '已拒绝写入：请求来自其他站点（{origin}）',
  badBody: '请求体有误：{problem}',
  bodyTooLarge: '请求体超过 {limit}',
  overlayUnknown: '服务器上没有覆盖层 "{id}"（服务器已重启或已将其丢弃，或文件已变化）：请重新注册',
  viewUnknown: '服务器上没有视图 "{id}"（服务器已重启或已将其丢弃，或文件已变化）：请重新发送其节点 id',
  overlayNotCompare: '{file} 是单图（build）文件，没有可匹配的节点',
  staleSave: '{file} 在打开后已被修改：请刷新后再保存',
  targetExists: '{file} 已存在：如需覆盖，请以 replace 再次保存',
  badConfigName: '匹配配置文件 "{file}"：{reason}',
  configUnreadable: '匹配配置文件 {file}：{problem}',
  writeFailed: '无法写入 {file}：{problem}',
  overlayTooLarge: '{file}：{side} 侧有 {count} 个节点，超过此列表可遍历的上限（{max} 个）；请改用搜索或筛选',
  shardsMissing: '{file}：共 {count} 个分片，缺少分片 {missing}；图中只显示其余分片的 step 和 rank',
  shardLeftOut: '{file} 未纳入其分片集合：{problem}{more}；图中显示其余分片',
  shardSetSave: '{file} 是作为一个图显示的一组分片：请先合并（probeboard merge）再保存匹配后的文件',
};

const tables: Record<Lang, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };

export type MessageParams = Record<string, string | number>;

/** A message not yet rendered, so one value can be shown in whichever language the request asks for. */
export interface Message {
  key: MessageKey;
  params: MessageParams;
}

export function translate(lang: Lang, msg: Message): string {
  return tables[lang][msg.key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in msg.params ? String(msg.params[name]) : whole,
  );
}
