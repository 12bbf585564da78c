import { ReloadOutlined, UploadOutlined } from '@ant-design/icons'
import { App, Button, Card, Popconfirm, Select, Space, Tag, Upload } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  changeState,
  deleteDeployments,
  deployUpload,
  fetchDefinitions,
  type ProcessDefinition,
} from '../../../api/flow/flow'
import { useDict } from '../../../hooks/useDict'
import { useSessionStore } from '../../../stores/session'
import { usePaged, useCategoryName } from '../common'
import FlowChart from '../FlowChart'
import FlowTable from '../FlowTable'

/** 流程管理: deployed definitions; suspend/activate, delete, upload BPMN files, view. */
export default function FlowManagerPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const permission = useSessionStore((s) => s.permission)
  const list = usePaged<ProcessDefinition>('definitions', fetchDefinitions)
  const category = useCategoryName()
  const categories = useDict('flow')
  const [uploadCategory, setUploadCategory] = useState('flow_1')
  const [viewing, setViewing] = useState<string | null>(null)
  return (
    <Card
      title={t('route.flowManager')}
      extra={
        <Space wrap>
          {permission.flow_manager_upload && (
            <>
              <Select
                style={{ width: 160 }}
                value={uploadCategory}
                onChange={setUploadCategory}
                options={categories.map((c) => ({
                  value: `flow_${c.dictKey}`,
                  label: c.dictValue,
                }))}
              />
              <Upload
                accept=".bpmn,.xml"
                showUploadList={false}
                beforeUpload={(file) => {
                  void deployUpload(uploadCategory, [file]).then(() => {
                    void message.success(t('flow.deployed'))
                    list.reload()
                  })
                  return false
                }}
              >
                <Button icon={<UploadOutlined />}>{t('flow.upload')}</Button>
              </Upload>
            </>
          )}
          <Button icon={<ReloadOutlined />} onClick={list.reload} />
        </Space>
      }
    >
      <FlowTable<ProcessDefinition>
        testId="flow-definitions"
        rows={list.rows}
        loading={list.loading}
        onPage={list.onPage}
        rowKey={(d) => d.id}
        columns={[
          { key: 'key', title: t('flow.field.key'), render: (d) => d.key },
          { key: 'name', title: t('flow.field.name'), render: (d) => d.name },
          { key: 'category', title: t('flow.field.category'), render: (d) => category(d.category) },
          { key: 'version', title: t('flow.field.version'), render: (d) => `v${d.version}` },
          {
            key: 'state',
            title: t('flow.field.state'),
            render: (d) => (
              <Tag color={d.suspensionState === 1 ? 'success' : 'default'}>
                {d.suspensionState === 1 ? t('flow.state.1') : t('flow.state.2')}
              </Tag>
            ),
          },
          { key: 'deployTime', title: t('flow.field.deployTime'), render: (d) => d.deploymentTime },
        ]}
        actions={(d) => (
          <Space wrap size={4}>
            <Button size="small" type="link" onClick={() => setViewing(d.id)}>
              {t('flow.view')}
            </Button>
            {permission.flow_manager_state && (
              <Button
                size="small"
                type="link"
                onClick={() =>
                  void changeState(d.id, d.suspensionState === 1 ? 'suspend' : 'active').then(
                    list.reload,
                  )
                }
              >
                {d.suspensionState === 1 ? t('flow.suspend') : t('flow.activate')}
              </Button>
            )}
            {permission.flow_manager_delete && (
              <Popconfirm
                title={t('flow.removeConfirm')}
                onConfirm={() => void deleteDeployments([d.id]).then(list.reload)}
              >
                <Button size="small" type="link" danger>
                  {t('flow.remove')}
                </Button>
              </Popconfirm>
            )}
          </Space>
        )}
      />
      <FlowChart
        open={viewing !== null}
        processDefinitionId={viewing ?? undefined}
        onClose={() => setViewing(null)}
      />
    </Card>
  )
}
