import { CheckOutlined } from '@ant-design/icons'
import {
  App,
  Button,
  Card,
  Segmented,
  Space,
  Table,
  Tag,
  Typography,
  type TableColumnsType,
} from 'antd'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { markRead, type Message } from '../../../api/alarm/message'
import { alarmKeys, messagePageQuery } from '../../../api/alarm/queries'
import { defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import { usePagedList } from '../../../hooks/usePagedList'
import { alarmTarget, useAlarmStore } from '../../../stores/alarm'
import { feedSignature } from '../alarms/logic'
import { messageQuery, unreadIds, type ReadFilter } from './logic'

interface ListState {
  filter: ReadFilter
  current: number
  size: number
}

const firstPage: ListState = { filter: 'all', current: 1, size: defaultPageSize }

/**
 * /intelligentOperation/message: the caller's messages, newest first; unread ones bold. Mark one,
 * the selected, or all read; a message about an alarm opens it (and counts as read).
 */
export default function MessagePage() {
  const { t } = useTranslation()
  const { message, modal } = App.useApp()
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const { list, go, page, loading } = usePagedList(firstPage, (state) =>
    messagePageQuery(messageQuery(state.filter, state.current, state.size)),
  )
  const [selected, setSelected] = useState<string[]>([])
  const reload = () => go()

  // New alarms bring new messages: reload when the bell's feed changes.
  const signature = useAlarmStore((s) => feedSignature(s.count, s.list))
  const seen = useRef(signature)
  useEffect(() => {
    if (seen.current === signature) return
    seen.current = signature
    void queryClient.invalidateQueries({ queryKey: alarmKeys.messages })
  }, [signature, queryClient])

  const read = async (ids: string[]) => {
    try {
      await markRead(ids)
      void message.success(t('messageUi.done'))
      setSelected([])
      reload()
    } catch {
      // shown by the request client
    }
  }

  const open = (row: Message) => {
    if (!row.isRead) void markRead([row.id]).catch(() => undefined)
    if (row.alarmId) void navigate(alarmTarget({ id: row.alarmId, type: row.type }))
  }

  const typeLabel = (type: number) => (type === 1 ? t('messageUi.type.1') : t('messageUi.type.2'))

  const columns: TableColumnsType<Message> = [
    {
      key: 'title',
      dataIndex: 'title',
      title: t('messageUi.field.title'),
      render: (title: string, row) => (
        <Typography.Text strong={!row.isRead} data-testid="message-title" data-read={row.isRead}>
          {title}
        </Typography.Text>
      ),
    },
    {
      key: 'content',
      dataIndex: 'content',
      title: t('messageUi.field.content'),
      render: (content: string, row) => (
        <Typography.Text strong={!row.isRead}>{content}</Typography.Text>
      ),
    },
    {
      key: 'type',
      dataIndex: 'type',
      title: t('messageUi.field.type'),
      render: (type: number) => typeLabel(type),
    },
    {
      key: 'isRead',
      dataIndex: 'isRead',
      title: t('messageUi.field.isRead'),
      render: (isRead: boolean) =>
        isRead ? <Tag>{t('messageUi.read')}</Tag> : <Tag color="blue">{t('messageUi.unread')}</Tag>,
    },
    { key: 'createTime', dataIndex: 'createTime', title: t('messageUi.field.createTime') },
    {
      key: '__actions',
      title: t('crud.actions'),
      fixed: 'right',
      render: (_: unknown, row) => (
        <Space size={0} wrap>
          {row.alarmId && (
            <Button
              type="link"
              size="small"
              data-testid="message-view-alarm"
              onClick={() => open(row)}
            >
              {t('messageUi.viewAlarm')}
            </Button>
          )}
          {!row.isRead && (
            <Button
              type="link"
              size="small"
              data-testid="message-mark-read"
              onClick={() => void read([row.id])}
            >
              {t('messageUi.markRead')}
            </Button>
          )}
        </Space>
      ),
    },
  ]

  return (
    <Card data-testid="message-page">
      <Space style={{ marginBottom: 16 }} wrap>
        <Segmented<ReadFilter>
          data-testid="message-filter"
          value={list.filter}
          onChange={(filter) => go({ filter, current: 1 })}
          options={[
            { value: 'all', label: t('messageUi.all') },
            { value: 'unread', label: t('messageUi.unread') },
            { value: 'read', label: t('messageUi.read') },
          ]}
        />
        <Button
          icon={<CheckOutlined />}
          disabled={selected.length === 0}
          data-testid="message-mark-selected"
          onClick={() => void read(selected)}
        >
          {t('messageUi.markRead')}
        </Button>
        <Button
          type="primary"
          data-testid="message-mark-all"
          onClick={() =>
            void modal.confirm({
              title: t('messageUi.markAllConfirm'),
              okButtonProps: { 'data-testid': 'message-mark-all-ok' },
              onOk: () => read([]),
            })
          }
        >
          {t('messageUi.markAllRead')}
        </Button>
      </Space>
      <Table<Message>
        data-testid="message-table"
        rowKey="id"
        size="middle"
        bordered
        loading={loading}
        columns={columns}
        dataSource={page.records}
        scroll={{ x: 'max-content' }}
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) =>
            setSelected(unreadIds(page.records.filter((m) => keys.includes(m.id)))),
          getCheckboxProps: (row) => ({ disabled: row.isRead }),
        }}
        pagination={{
          current: list.current,
          pageSize: list.size,
          total: page.total,
          showSizeChanger: true,
          pageSizeOptions: pageSizeOptions.map(String),
          showTotal: (total) => t('crud.total', { total }),
          onChange: (current, size) => go(size !== list.size ? { current: 1, size } : { current }),
        }}
      />
    </Card>
  )
}
