/**
 * English UI strings: the source of truth for message keys. zh-CN must define every key (checked by the type of
 * `zhCN` and by test/unit/shell/i18n.test.ts). `{name}` placeholders are filled by `t(key, {name})`.
 */
export const en = {
  'app.title': 'probeboard',
  'app.loading': 'Loading…',
  'app.noFile': 'Choose a run and a file in the sidebar.',
  'app.fileFailed': 'This file could not be opened; the message above says why.',
  'app.noFiles': 'No .vis files were found in the log directory {logdir}.',

  'sidebar.toggle': 'Show or hide the sidebar',
  'sidebar.data': 'Data',
  'sidebar.precision': 'Accuracy error',

  'picker.run': 'Run',
  'picker.tag': 'File',
  'picker.micro': 'Micro step',
  'picker.microAll': 'ALL',
  'picker.badFile': '{tag} (cannot open)',
  'picker.fileError': 'This file cannot be opened: {error}',
  'picker.compare': 'compare',
  'picker.build': 'build',

  'legend.module': 'Module or operator',
  'legend.moduleTip': 'A module that can be expanded (double-click).',
  'legend.leaf': 'Unexpanded node',
  'legend.leafTip': 'A node without children: an API call or an empty module.',
  'legend.apiList': 'API list',
  'legend.apiListTip': 'APIs called between two modules, grouped (Apis_Between_Modules).',
  'legend.fusion': 'Multi collection',
  'legend.fusionTip': 'A fusion collection of several operators.',
  'legend.unmatched': 'No matching node',
  'legend.noValue': 'No value (NaN or not computed)',
  'legend.benchNeutral': 'Bench nodes are drawn neutral; NPU nodes carry the colour.',
  'legend.noColors': 'This file has no colour buckets.',
  'legend.build': 'A single graph (build file): nodes are not compared, so they carry no colour.',
  'legend.task.summary':
    'Statistics mode: the largest relative error |(NPU − Bench) / Bench| of the Max, Min, Mean and Norm of the node’s outputs, clamped to 1. 0 is good, 1 is bad; a NaN or Inf output gives 1.',
  'legend.task.md5': 'MD5 mode: 1 means every input and output checksum equals the Bench one (pass); 0 means at least one differs.',
  'legend.task.all':
    'Real-data mode: how much the One Thousandth Err Ratio drops from the inputs (minimum) to the outputs (minimum). 0 is good, 1 is bad.',
  'legend.task.structure': 'Structure mode: no values are compared; colours only show whether a node found a match.',
  'legend.task.unknown': 'The file does not say which comparison task produced it.',
  'legend.range': '{lo} ≤ value < {hi}',
  'legend.rangeClosed': '{lo} ≤ value ≤ {hi}',
  'legend.exact': 'value = {v}',
  'legend.md5Pass': 'value = 1 (all MD5 equal)',
  'legend.md5Diff': 'value = 0 (some MD5 differ)',

  'pane.npu': 'NPU (debug)',
  'pane.bench': 'Bench',
  'pane.single': 'Graph',
  'splitter.label': 'Drag to resize the NPU and Bench panes',

  'info.resize': 'Drag to resize the info panel',
  'info.tab.compare': 'Comparison details',
  'info.tab.details': 'Node details',
  'info.tab.nodeInfo': 'Node information',
  'info.none': 'Click a node to see its inputs and outputs.',
  'info.loading': 'Loading node…',
  'info.npuNode': 'NPU node: {id}',
  'info.benchNode': 'Bench node: {id}',
  'info.node': 'Node: {id}',
  'info.noCounterpart': 'no matching node',
  'info.matched': 'matched',
  'info.unmatched': 'unmatched',
  'info.noRows': 'This node has no inputs or outputs.',
  'info.col.side': 'Side',
  'info.col.name': 'Name',
  'info.side.npu': 'NPU',
  'info.side.bench': 'Bench',
  'info.stack': 'Stack',
  'info.parallelMerge': 'Parallel merge',
  'info.suggestions': 'Suggestions',
  'info.empty': '(none)',
  'info.copy': 'Copy',
  'info.copied': 'Copied',
  'info.copyFailed': 'Copy failed',

  'lang.label': 'Language',

  'error.dismiss': 'Dismiss',
  'error.network': 'Cannot reach the server: {message}',
  'error.http': 'Server answered {status}: {message}',
  'error.nodeMissing': 'Node {id} was not found on the {side} side of this file.',
} as const;

export type MessageKey = keyof typeof en;
