import type { tbNodeEn } from './tbNodeEn.js';

/** TensorBoard / ONNX 节点详情（issue 16）的中文界面文字，并入 zhCN.ts。 */
export const tbNodeZhCN: Record<keyof typeof tbNodeEn, string> = {
  'tbnode.op': '算子类型',
  'tbnode.domain': '算子域',
  'tbnode.device': '设备',
  'tbnode.role': '角色',
  'tbnode.role.input': '图输入',
  'tbnode.role.output': '图输出',
  'tbnode.role.arg': '函数参数',
  'tbnode.role.ret': '函数返回值',
  'tbnode.calls': '调用函数',
  'tbnode.group': '{label}：内含 {count} 个算子',
  'tbnode.attrs': '属性（{count} 个）',
  'tbnode.showAll': '全部显示',
  'tbnode.showLess': '收起',
  'tbnode.showAllTip': '显示全部属性及每个属性的完整值',
  'tbnode.more': '… 还有 {count} 个字符',
  'tbnode.cut': '服务器已截短该值（长文本保留 1,024 个字符，张量只保留前几个值）：完整张量不会加载到页面',
  'tbnode.io': '输入与输出',
  'tbnode.runStats': '运行元数据（步骤统计）',
  'tbnode.runStats.record': '{tag}，第 {step} 步，{device}',
  'tbnode.runStats.time': '计算时间：{op} 微秒（总计 {all} 微秒）',
  'tbnode.runStats.memory': '{allocator}：申请 {total}，峰值 {peak}，常驻 {live}',
  'tbnode.runStats.output': '输出 {slot}：{dtype}{shape}',
};
