import { ReloadOutlined } from '@ant-design/icons'
import { Button, Card, Input, Modal, Space } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { deleteInstance, fetchInstances, type ProcessInstance } from '../../../api/flow/flow'
import { useSessionStore } from '../../../stores/session'
import { instanceColumns } from '../columns'
import { usePaged } from '../common'
import FlowChart from '../FlowChart'
import FlowTable from '../FlowTable'

/** 流程跟踪: the tenant's instances; the diagram of each; deleting a running one. */
export default function FlowFollowPage() {
  const { t } = useTranslation()
  const permission = useSessionStore((s) => s.permission)
  const list = usePaged<ProcessInstance>('instances', fetchInstances)
  const [viewing, setViewing] = useState<string | null>(null)
  const [deleting, setDeleting] = useState<string | null>(null)
  const [reason, setReason] = useState('')
  return (
    <Card
      title={t('route.flowFollow')}
      extra={<Button icon={<ReloadOutlined />} onClick={list.reload} />}
    >
      <FlowTable<ProcessInstance>
        testId="flow-instances"
        rows={list.rows}
        loading={list.loading}
        onPage={list.onPage}
        rowKey={(i) => i.processInstanceId}
        columns={instanceColumns(t)}
        actions={(i) => (
          <Space wrap size={4}>
            <Button size="small" type="link" onClick={() => setViewing(i.processInstanceId)}>
              {t('flow.view')}
            </Button>
            {permission.flow_follow_delete && i.status === 1 && (
              <Button
                size="small"
                type="link"
                danger
                onClick={() => setDeleting(i.processInstanceId)}
              >
                {t('flow.deleteInstance')}
              </Button>
            )}
          </Space>
        )}
      />
      <FlowChart
        open={viewing !== null}
        processInstanceId={viewing ?? undefined}
        onClose={() => setViewing(null)}
      />
      <Modal
        open={deleting !== null}
        title={t('flow.deleteInstance')}
        onCancel={() => setDeleting(null)}
        onOk={() =>
          void deleteInstance(deleting ?? '', reason).then(() => {
            setDeleting(null)
            setReason('')
            list.reload()
          })
        }
      >
        <Input.TextArea
          placeholder={t('flow.deleteReason')}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </Modal>
    </Card>
  )
}
