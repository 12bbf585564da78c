import { BugOutlined } from '@ant-design/icons'
import { App, Badge, Button, Modal, Space, Table, Tooltip } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { sendLogs } from '../../api/auth'
import { useErrorLogStore, type ErrorLogEntry } from '../../utils/errorLog'

/** Error-log icon with a badge (max 99) opening the full-screen log dialog. */
export default function ErrorLogButton() {
  const { t } = useTranslation()
  const { modal, message } = App.useApp()
  const logs = useErrorLogStore((s) => s.logs)
  const clear = useErrorLogStore((s) => s.clear)
  const [open, setOpen] = useState(false)

  const upload = () => {
    modal.confirm({
      title: t('logs.uploadConfirm'),
      onOk: async () => {
        await sendLogs(useErrorLogStore.getState().logs)
        clear()
        void message.success(t('logs.sent'))
      },
    })
  }

  const clearAll = () => {
    modal.confirm({
      title: t('logs.clearConfirm'),
      onOk: () => {
        clear()
        void message.success(t('logs.cleared'))
      },
    })
  }

  return (
    <>
      <Tooltip title={t('top.errorLog')}>
        <Badge count={logs.length} overflowCount={99} size="small">
          <BugOutlined
            data-testid="error-log-button"
            style={{ fontSize: 18, cursor: 'pointer' }}
            onClick={() => setOpen(true)}
          />
        </Badge>
      </Tooltip>
      <Modal
        title={t('logs.title')}
        open={open}
        onCancel={() => setOpen(false)}
        footer={null}
        width="100%"
        style={{ top: 0, maxWidth: '100vw', paddingBottom: 0 }}
        styles={{ body: { minHeight: 'calc(100vh - 110px)' } }}
      >
        <Space style={{ marginBottom: 12 }}>
          <Button type="primary" disabled={logs.length === 0} onClick={upload}>
            {t('logs.upload')}
          </Button>
          <Button danger disabled={logs.length === 0} onClick={clearAll}>
            {t('logs.clear')}
          </Button>
        </Space>
        <Table<ErrorLogEntry>
          size="small"
          rowKey={(row) => `${row.time}-${row.message}-${row.stack.length}`}
          dataSource={logs}
          locale={{ emptyText: t('logs.empty') }}
          pagination={{ pageSize: 10 }}
          columns={[
            { title: t('logs.type'), dataIndex: 'type', width: 80 },
            { title: t('logs.url'), dataIndex: 'url', width: 220, ellipsis: true },
            { title: t('logs.message'), dataIndex: 'message', ellipsis: true },
            { title: t('logs.stack'), dataIndex: 'stack', ellipsis: true },
            { title: t('logs.info'), dataIndex: 'info', width: 160 },
            { title: t('logs.time'), dataIndex: 'time', width: 180 },
          ]}
        />
      </Modal>
    </>
  )
}
