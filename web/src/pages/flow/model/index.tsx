import { PlusOutlined, ReloadOutlined } from '@ant-design/icons'
import { App, Button, Card, Popconfirm, Space, Tag } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  deployModel,
  fetchModel,
  fetchModels,
  removeModels,
  saveModel,
  type FlowModel,
} from '../../../api/flow/flow'
import { useSessionStore } from '../../../stores/session'
import { usePaged, useCategoryName } from '../common'
import FlowTable from '../FlowTable'
import ModelerDialog from '../Modeler'
import { newModelXml } from '../subset'

/** 流程模型: the tenant's process models; design one in the modeler, save, deploy. */
export default function FlowModelPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const permission = useSessionStore((s) => s.permission)
  const list = usePaged<FlowModel>('models', fetchModels)
  const category = useCategoryName()
  const [editing, setEditing] = useState<{ id?: string; xml: string; category?: string } | null>(
    null,
  )
  const [saving, setSaving] = useState(false)
  const open = async (m: FlowModel) => {
    const full = await fetchModel(m.id)
    setEditing({ id: m.id, xml: full.xml, category: full.category })
  }
  const save = async (xml: string, deploy: boolean) => {
    if (!editing) return
    setSaving(true)
    try {
      const saved = await saveModel({ id: editing.id, xml, category: editing.category })
      if (deploy) {
        await deployModel(saved.id)
        void message.success(t('flow.deployed'))
      } else void message.success(t('flow.saved'))
      setEditing(null)
      list.reload()
    } catch {
      // The request client has shown why (e.g. an element outside the subset, named).
    } finally {
      setSaving(false)
    }
  }
  return (
    <Card
      title={t('route.flowModel')}
      extra={
        <Space wrap>
          {permission.flow_model_add && (
            <Button
              icon={<PlusOutlined />}
              type="primary"
              onClick={() =>
                setEditing({ xml: newModelXml(`process_${Date.now()}`, t('flow.newModel')) })
              }
            >
              {t('flow.newModel')}
            </Button>
          )}
          <Button icon={<ReloadOutlined />} onClick={list.reload} />
        </Space>
      }
    >
      <FlowTable<FlowModel>
        testId="flow-models"
        rows={list.rows}
        loading={list.loading}
        onPage={list.onPage}
        rowKey={(m) => m.id}
        columns={[
          { key: 'key', title: t('flow.field.key'), render: (m) => m.modelKey },
          { key: 'name', title: t('flow.field.name'), render: (m) => m.name },
          { key: 'category', title: t('flow.field.category'), render: (m) => category(m.category) },
          { key: 'version', title: t('flow.field.version'), render: (m) => m.version },
          {
            key: 'deployed',
            title: t('flow.field.deployedVersion'),
            render: (m) =>
              m.deployedVersion ? <Tag color="success">v{m.deployedVersion}</Tag> : '-',
          },
          { key: 'updateTime', title: t('flow.field.updateTime'), render: (m) => m.updateTime },
        ]}
        actions={(m) => (
          <Space wrap size={4}>
            {permission.flow_model_edit && (
              <Button size="small" type="link" onClick={() => void open(m)}>
                {t('flow.design')}
              </Button>
            )}
            {permission.flow_model_deploy && (
              <Button
                size="small"
                type="link"
                onClick={() =>
                  void deployModel(m.id).then(() => {
                    void message.success(t('flow.deployed'))
                    list.reload()
                  })
                }
              >
                {t('flow.deploy')}
              </Button>
            )}
            {permission.flow_model_delete && (
              <Popconfirm
                title={t('flow.removeConfirm')}
                onConfirm={() => void removeModels([m.id]).then(list.reload)}
              >
                <Button size="small" type="link" danger>
                  {t('flow.remove')}
                </Button>
              </Popconfirm>
            )}
          </Space>
        )}
      />
      <ModelerDialog
        open={editing !== null}
        xml={editing?.xml ?? ''}
        saving={saving}
        onCancel={() => setEditing(null)}
        onSave={(xml, deploy) => void save(xml, deploy)}
      />
    </Card>
  )
}
