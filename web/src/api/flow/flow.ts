/**
 * Workflow (`/api/blade-flow`, `/api/blade-desk`; docs/workflow.md): models, deployments,
 * instances and their diagram, the caller's work lists, claiming and completing tasks, leave.
 */
import request from '../request'
import { emptyPage, type Envelope, type Page, type PageQuery } from '../types'

export interface FlowModel {
  id: string
  modelKey: string
  name: string
  description: string
  category: string
  version: number
  deployedVersion: number | null
  xml: string
  createTime: string
  updateTime: string
}

export interface ProcessDefinition {
  id: string
  deploymentId: string
  tenantId: string
  key: string
  name: string
  category: string
  version: number
  /** 1 active, 2 suspended. */
  suspensionState: number
  deploymentTime: string
}

export interface ProcessInstance {
  processInstanceId: string
  processDefinitionId: string
  processDefinitionKey: string
  processDefinitionName: string
  processDefinitionVersion: number
  category: string
  businessTable: string
  businessId: string | null
  title: string
  /** 1 running, 2 completed, 3 deleted. */
  status: number
  processIsFinished: boolean
  startUserName: string
  startTime: string
  endTime: string | null
  deleteReason: string
  currentTask: string | null
}

export interface WorkTask {
  taskId: string
  taskName: string
  taskDefinitionKey: string
  assignee: string | null
  assigneeName: string
  status: number
  createTime: string
  claimTime: string | null
  endTime: string | null
  comment: string
  processInstanceId: string
  processDefinitionId: string
  processDefinitionKey: string
  processDefinitionName: string
  category: string
  businessTable: string
  businessId: string | null
  title: string
  processIsFinished: boolean
  startUserName: string
}

export interface FlowActivity {
  historyActivityId: string
  historyActivityType: string
  endTime: string | null
}

export interface ModelView {
  xml: string
  flow: FlowActivity[]
}

export interface HistoryFlow {
  historyActivityId: string
  historyActivityName: string
  historyActivityType: string
  assigneeName: string
  comment: string
  createTime: string
  endTime: string | null
}

const page = <T>(p: Page<T> | null | undefined): Page<T> => p ?? emptyPage<T>()

export async function fetchModels(query: PageQuery): Promise<Page<FlowModel>> {
  const res = await request.get<Envelope<Page<FlowModel>>>('/blade-flow/model/list', {
    params: query,
  })
  return page(res.data.data)
}

export async function fetchModel(id: string): Promise<FlowModel> {
  const res = await request.get<Envelope<FlowModel>>('/blade-flow/model/detail', { params: { id } })
  return res.data.data
}

export interface ModelForm {
  id?: string
  name?: string
  description?: string
  category?: string
  xml: string
}

export async function saveModel(form: ModelForm): Promise<FlowModel> {
  const res = await request.post<Envelope<FlowModel>>('/blade-flow/model/submit', form)
  return res.data.data
}

export async function removeModels(ids: string[]): Promise<void> {
  await request.post('/blade-flow/model/remove', null, { params: { ids: ids.join(',') } })
}

export async function deployModel(
  modelId: string,
  category?: string,
): Promise<ProcessDefinition[]> {
  const res = await request.post<Envelope<ProcessDefinition[]>>('/blade-flow/model/deploy', null, {
    params: { modelId, category },
  })
  return res.data.data
}

export async function fetchDefinitions(query: PageQuery): Promise<Page<ProcessDefinition>> {
  const res = await request.get<Envelope<Page<ProcessDefinition>>>('/blade-flow/manager/list', {
    params: query,
  })
  return page(res.data.data)
}

export async function changeState(processId: string, state: 'active' | 'suspend'): Promise<void> {
  await request.post('/blade-flow/manager/change-state', null, { params: { processId, state } })
}

export async function deleteDeployments(ids: string[]): Promise<void> {
  await request.post('/blade-flow/manager/delete-deployment', null, {
    params: { deploymentIds: ids.join(',') },
  })
}

export async function deployUpload(category: string, files: File[]): Promise<ProcessDefinition[]> {
  const form = new FormData()
  form.append('category', category)
  for (const f of files) form.append('files', f)
  const res = await request.post<Envelope<ProcessDefinition[]>>(
    '/blade-flow/manager/deploy-upload',
    form,
  )
  return res.data.data
}

export async function fetchInstances(query: PageQuery): Promise<Page<ProcessInstance>> {
  const res = await request.get<Envelope<Page<ProcessInstance>>>('/blade-flow/follow/list', {
    params: query,
  })
  return page(res.data.data)
}

export async function deleteInstance(
  processInstanceId: string,
  deleteReason: string,
): Promise<void> {
  await request.post('/blade-flow/follow/delete-process-instance', null, {
    params: { processInstanceId, deleteReason },
  })
}

export async function fetchModelView(by: {
  processInstanceId?: string
  processDefinitionId?: string
}): Promise<ModelView> {
  const res = await request.get<Envelope<ModelView>>('/blade-flow/process/model-view', {
    params: by,
  })
  return res.data.data
}

export async function fetchHistory(processInstanceId: string): Promise<HistoryFlow[]> {
  const res = await request.get<Envelope<HistoryFlow[]>>('/blade-flow/process/history-flow-list', {
    params: { processInstanceId },
  })
  return res.data.data ?? []
}

export type WorkList = 'start-list' | 'claim-list' | 'todo-list' | 'send-list' | 'done-list'

export async function fetchWork<T>(which: WorkList, query: PageQuery): Promise<Page<T>> {
  const res = await request.get<Envelope<Page<T>>>(`/blade-flow/work/${which}`, { params: query })
  return page(res.data.data)
}

export async function claimTask(taskId: string): Promise<void> {
  await request.post('/blade-flow/work/claim-task', null, { params: { taskId } })
}

export async function completeTask(body: {
  taskId: string
  comment: string
  pass?: boolean
  variables?: Record<string, unknown>
}): Promise<void> {
  await request.post('/blade-flow/work/complete-task', body)
}

export interface LeaveForm {
  taskUser: string
  startTime: string
  endTime: string
  reason: string
}

export async function startLeave(form: LeaveForm): Promise<void> {
  await request.post('/blade-desk/process/leave/start-process', form)
}

/** A user a leave request may name as approver. */
export interface Approver {
  id: string
  account: string
  name: string
}

/** The tenant's other users whose account or name contains `keyword` (at most 20). */
export async function fetchApprovers(keyword: string): Promise<Approver[]> {
  const res = await request.get<Envelope<Approver[]>>('/blade-desk/process/leave/approvers', {
    params: keyword ? { keyword } : {},
  })
  return res.data.data
}

/** Nodes to mark on the diagram (spec "flow chart display"): finished → success, open → primary. */
export function markings(flow: FlowActivity[]): {
  done: string[]
  active: string[]
  flows: string[]
} {
  const done = new Set<string>()
  const active = new Set<string>()
  const flows = new Set<string>()
  for (const f of flow) {
    if (f.historyActivityType === 'sequenceFlow') flows.add(f.historyActivityId)
    else if (f.endTime) done.add(f.historyActivityId)
    else active.add(f.historyActivityId)
  }
  for (const a of active) done.delete(a)
  return { done: [...done], active: [...active], flows: [...flows] }
}
