import { ReloadOutlined } from '@ant-design/icons'
import { App, Button, Card, DatePicker, Form, Input, Modal, Space, Tabs, Tag } from 'antd'
import type { Dayjs } from 'dayjs'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  claimTask,
  completeTask,
  fetchWork,
  startLeave,
  type ProcessDefinition,
  type ProcessInstance,
  type WorkList,
  type WorkTask,
} from '../../../api/flow/flow'
import type { PageQuery } from '../../../api/types'
import { usePaged, useCategoryName } from '../common'
import FlowChart from '../FlowChart'
import FlowTable from '../FlowTable'
import { instanceColumns } from '../columns'
import ApproverSelect from './ApproverSelect'

const load =
  <T,>(which: WorkList) =>
  (q: PageQuery) =>
    fetchWork<T>(which, q)

type Tab = 'start' | 'claim' | 'todo' | 'send' | 'done'

/** 我的事务: what the caller may start, claim, do, has sent and has done; claim and handle tasks. */
export default function WorkPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const category = useCategoryName()
  const [tab, setTab] = useState<Tab>('todo')
  const starts = usePaged<ProcessDefinition>('start', load<ProcessDefinition>('start-list'))
  const claims = usePaged<WorkTask>('claim', load<WorkTask>('claim-list'))
  const todos = usePaged<WorkTask>('todo', load<WorkTask>('todo-list'))
  const sent = usePaged<ProcessInstance>('send', load<ProcessInstance>('send-list'))
  const done = usePaged<WorkTask>('done', load<WorkTask>('done-list'))
  const [viewing, setViewing] = useState<string | null>(null)
  const [handling, setHandling] = useState<WorkTask | null>(null)
  const [comment, setComment] = useState('')
  const [busy, setBusy] = useState(false)
  const [leaveOpen, setLeaveOpen] = useState(false)
  const [leaveForm] = Form.useForm<{ taskUser: string; period: [Dayjs, Dayjs]; reason: string }>()
  const reloadAll = () => [claims, todos, sent, done].forEach((l) => l.reload())
  const finish = async (pass: boolean) => {
    if (!handling) return
    setBusy(true)
    try {
      await completeTask({ taskId: handling.taskId, comment, pass })
      void message.success(t('crud.success'))
      setHandling(null)
      setComment('')
      reloadAll()
    } catch {
      // The request client has shown why (e.g. already done by someone else).
    } finally {
      setBusy(false)
    }
  }
  const taskColumns = [
    {
      key: 'title',
      title: t('flow.field.title'),
      render: (w: WorkTask) => w.title || w.processDefinitionName,
    },
    { key: 'task', title: t('flow.field.taskName'), render: (w: WorkTask) => w.taskName },
    {
      key: 'category',
      title: t('flow.field.category'),
      render: (w: WorkTask) => category(w.category),
    },
    {
      key: 'startUser',
      title: t('flow.field.startUser'),
      render: (w: WorkTask) => w.startUserName,
    },
    { key: 'createTime', title: t('flow.field.createTime'), render: (w: WorkTask) => w.createTime },
  ]
  const view = (id: string) => (
    <Button size="small" type="link" onClick={() => setViewing(id)}>
      {t('flow.view')}
    </Button>
  )
  const items = [
    {
      key: 'start',
      label: t('flow.tabs.start'),
      children: (
        <FlowTable<ProcessDefinition>
          testId="work-start"
          {...starts}
          rowKey={(d) => d.id}
          columns={[
            { key: 'name', title: t('flow.field.name'), render: (d) => d.name },
            {
              key: 'category',
              title: t('flow.field.category'),
              render: (d) => category(d.category),
            },
            { key: 'version', title: t('flow.field.version'), render: (d) => `v${d.version}` },
          ]}
          actions={(d) =>
            d.key === 'leave' ? (
              <Button size="small" type="link" onClick={() => setLeaveOpen(true)}>
                {t('flow.applyLeave')}
              </Button>
            ) : null
          }
        />
      ),
    },
    {
      key: 'claim',
      label: t('flow.tabs.claim'),
      children: (
        <FlowTable<WorkTask>
          testId="work-claim"
          {...claims}
          rowKey={(w) => w.taskId}
          columns={taskColumns}
          actions={(w) => (
            <Space wrap size={4}>
              <Button
                size="small"
                type="link"
                onClick={() => void claimTask(w.taskId).then(reloadAll)}
              >
                {t('flow.claim')}
              </Button>
              <Button size="small" type="link" onClick={() => setHandling(w)}>
                {t('flow.handle')}
              </Button>
              {view(w.processInstanceId)}
            </Space>
          )}
        />
      ),
    },
    {
      key: 'todo',
      label: t('flow.tabs.todo'),
      children: (
        <FlowTable<WorkTask>
          testId="work-todo"
          {...todos}
          rowKey={(w) => w.taskId}
          columns={taskColumns}
          actions={(w) => (
            <Space wrap size={4}>
              <Button size="small" type="link" onClick={() => setHandling(w)}>
                {t('flow.handle')}
              </Button>
              {view(w.processInstanceId)}
            </Space>
          )}
        />
      ),
    },
    {
      key: 'send',
      label: t('flow.tabs.send'),
      children: (
        <FlowTable<ProcessInstance>
          testId="work-send"
          {...sent}
          rowKey={(i) => i.processInstanceId}
          columns={instanceColumns(t)}
          actions={(i) => view(i.processInstanceId)}
        />
      ),
    },
    {
      key: 'done',
      label: t('flow.tabs.done'),
      children: (
        <FlowTable<WorkTask>
          testId="work-done"
          {...done}
          rowKey={(w) => w.taskId}
          columns={[
            ...taskColumns,
            { key: 'comment', title: t('flow.field.comment'), render: (w: WorkTask) => w.comment },
            {
              key: 'finished',
              title: t('flow.field.state'),
              render: (w: WorkTask) => (
                <Tag>{w.processIsFinished ? t('flow.status.2') : t('flow.status.1')}</Tag>
              ),
            },
          ]}
          actions={(w) => view(w.processInstanceId)}
        />
      ),
    },
  ]
  return (
    <Card
      title={t('route.work')}
      extra={
        <Button
          icon={<ReloadOutlined />}
          onClick={() => {
            starts.reload()
            reloadAll()
          }}
        />
      }
    >
      <Tabs activeKey={tab} onChange={(k) => setTab(k as Tab)} items={items} />
      <FlowChart
        open={viewing !== null}
        processInstanceId={viewing ?? undefined}
        onClose={() => setViewing(null)}
      />
      <Modal
        open={handling !== null}
        title={handling ? `${handling.taskName} · ${handling.title}` : ''}
        onCancel={() => setHandling(null)}
        footer={
          <Space wrap>
            <Button danger loading={busy} onClick={() => void finish(false)}>
              {t('flow.reject')}
            </Button>
            <Button type="primary" loading={busy} onClick={() => void finish(true)}>
              {t('flow.approve')}
            </Button>
          </Space>
        }
      >
        <Input.TextArea
          aria-label={t('flow.comment')}
          placeholder={t('flow.comment')}
          rows={3}
          maxLength={1000}
          value={comment}
          onChange={(e) => setComment(e.target.value)}
        />
        {handling && (
          <Button
            type="link"
            style={{ paddingLeft: 0 }}
            onClick={() => setViewing(handling.processInstanceId)}
          >
            {t('flow.view')}
          </Button>
        )}
      </Modal>
      <Modal
        open={leaveOpen}
        title={t('flow.applyLeave')}
        onCancel={() => setLeaveOpen(false)}
        onOk={() =>
          void leaveForm.validateFields().then(async (v) => {
            await startLeave({
              taskUser: v.taskUser,
              startTime: v.period[0].format('YYYY-MM-DD HH:mm:ss'),
              endTime: v.period[1].format('YYYY-MM-DD HH:mm:ss'),
              reason: v.reason ?? '',
            })
            setLeaveOpen(false)
            leaveForm.resetFields()
            reloadAll()
          })
        }
      >
        <Form form={leaveForm} layout="vertical">
          <Form.Item name="taskUser" label={t('flow.field.approver')} rules={[{ required: true }]}>
            <ApproverSelect />
          </Form.Item>
          <Form.Item
            name="period"
            label={`${t('flow.field.leaveStart')} - ${t('flow.field.leaveEnd')}`}
            rules={[{ required: true }]}
          >
            <DatePicker.RangePicker showTime style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item name="reason" label={t('flow.field.reason')}>
            <Input.TextArea maxLength={500} />
          </Form.Item>
        </Form>
      </Modal>
    </Card>
  )
}
