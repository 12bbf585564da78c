import { PlusOutlined } from '@ant-design/icons'
import { App, Button, Col, DatePicker, Form, Input, Row, Select, Space, Spin, Switch } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import dayjs, { type Dayjs } from 'dayjs'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate, useSearchParams } from 'react-router-dom'
import { saveItemAndReturn, savePlan } from '../../../api/inspection/inspection'
import {
  alarmDayQuery,
  cyclePeriodQuery,
  inspectionKeys,
  itemListQuery,
  maintenanceQuery,
  planDetailQuery,
} from '../../../api/inspection/queries'
import type { InspectItem, InspectPlan } from '../../../api/inspection/types'
import { stationNamesQuery } from '../../../api/station/queries'
import { PageBox } from '../common'
import { alarmDayLabel, cycleLabel } from '../labels'
import ItemDialog from '../ItemDialog'
import { planBody, planPath, type PlanFormValues } from '../logic'

const valuesOf = (plan: InspectPlan | undefined): PlanFormValues =>
  plan
    ? {
        name: plan.name,
        stationIds: plan.stationIds,
        itemIds: plan.itemIds,
        maintenanceIds: plan.maintenanceIds,
        cyclePeriod: plan.cyclePeriod,
        alarmDay: String(plan.alarmDay),
        startDate: plan.startDate ? dayjs(plan.startDate) : null,
        endDate: plan.endDate ? dayjs(plan.endDate) : null,
        enabled: plan.status === 1,
        remark: plan.remark ?? '',
      }
    : {
        alarmDay: '0',
        enabled: true,
        startDate: dayjs(),
        stationIds: [],
        itemIds: [],
        maintenanceIds: [],
      }

/** `/intelligentOperation/edit-inspectionPlan?id=` (no id: a new plan). */
export default function EditInspectionPlanPage() {
  const [params] = useSearchParams()
  const id = params.get('id') ?? ''
  const detail = useQuery({ ...planDetailQuery(id), enabled: id !== '' })
  if (id !== '' && detail.isPending) return <Spin style={{ display: 'block', margin: 48 }} />
  return <PlanForm key={id} id={id} plan={detail.data} />
}

function PlanForm({ id, plan }: { id: string; plan: InspectPlan | undefined }) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const navigate = useNavigate()
  const client = useQueryClient()
  const [form] = Form.useForm<PlanFormValues>()
  const [busy, setBusy] = useState(false)
  const [newItem, setNewItem] = useState(false)
  const stationIds = Form.useWatch('stationIds', form) ?? plan?.stationIds ?? []
  const stations = useQuery(stationNamesQuery())
  const items = useQuery(itemListQuery())
  const staff = useQuery({ ...maintenanceQuery(stationIds), enabled: stationIds.length > 0 })
  const cycles = useQuery(cyclePeriodQuery()).data ?? []
  const alarmDays = useQuery(alarmDayQuery()).data ?? []

  const itemOptions: InspectItem[] = [...(items.data ?? [])]
  for (const item of plan?.items ?? [])
    if (!itemOptions.some((i) => i.id === item.id)) itemOptions.push(item)
  const staffOptions = [...(staff.data ?? [])].map((u) => ({
    value: u.id,
    label: u.realName ? `${u.realName} (${u.account})` : u.account,
  }))
  for (const [i, mid] of (plan?.maintenanceIds ?? []).entries()) {
    if (!staffOptions.some((o) => o.value === mid))
      staffOptions.push({ value: mid, label: plan?.maintenanceNames[i] ?? mid })
  }

  const submit = async () => {
    const values = await form.validateFields().catch(() => null)
    if (!values) return
    setBusy(true)
    try {
      const saved = await savePlan(planBody(values, id || undefined))
      void message.success(t('inspection.message.saved'))
      await client.invalidateQueries({ queryKey: inspectionKeys.plans })
      void navigate(planPath(saved.id || id), { replace: true })
    } catch (error) {
      void message.error(error instanceof Error ? error.message : String(error))
    } finally {
      setBusy(false)
    }
  }

  const half = { xs: 24, md: 12 }
  return (
    <PageBox
      testId="inspection-plan-edit"
      title={t(id ? 'inspection.title.planEdit' : 'inspection.title.planAdd')}
    >
      <Form<PlanFormValues>
        form={form}
        layout="vertical"
        data-testid="plan-form"
        initialValues={valuesOf(plan)}
      >
        <Row gutter={16}>
          <Col {...half}>
            <Form.Item
              name="name"
              label={t('inspection.field.planName')}
              rules={[
                { required: true, whitespace: true, message: t('inspection.rule.nameRequired') },
                { max: 100 },
              ]}
            >
              <Input
                data-testid="plan-name"
                maxLength={100}
                placeholder={t('inspection.placeholder.planName')}
              />
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item
              name="stationIds"
              label={t('inspection.field.stations')}
              rules={[
                {
                  required: true,
                  type: 'array',
                  min: 1,
                  message: t('inspection.rule.stationsRequired'),
                },
              ]}
            >
              <Select
                data-testid="plan-stations"
                mode="multiple"
                showSearch={{ optionFilterProp: 'label' }}
                loading={stations.isPending}
                options={(stations.data ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
                onChange={() => form.setFieldValue('maintenanceIds', [])}
              />
            </Form.Item>
          </Col>
          <Col xs={24}>
            <Form.Item label={t('inspection.field.items')} required>
              <Space.Compact style={{ width: '100%' }}>
                <Form.Item
                  name="itemIds"
                  noStyle
                  rules={[
                    {
                      required: true,
                      type: 'array',
                      min: 1,
                      message: t('inspection.rule.itemsRequired'),
                    },
                  ]}
                >
                  <Select
                    data-testid="plan-items"
                    mode="multiple"
                    showSearch={{ optionFilterProp: 'label' }}
                    loading={items.isPending}
                    options={itemOptions.map((i) => ({ value: i.id, label: i.title }))}
                  />
                </Form.Item>
                <Button
                  icon={<PlusOutlined />}
                  data-testid="plan-new-item"
                  onClick={() => setNewItem(true)}
                >
                  {t('inspection.action.newItem')}
                </Button>
              </Space.Compact>
            </Form.Item>
          </Col>
          <Col {...half}>
            <Form.Item
              name="maintenanceIds"
              label={t('inspection.field.maintenance')}
              rules={[
                {
                  required: true,
                  type: 'array',
                  min: 1,
                  message: t('inspection.rule.maintenanceRequired'),
                },
              ]}
            >
              <Select
                data-testid="plan-maintenance"
                mode="multiple"
                showSearch={{ optionFilterProp: 'label' }}
                disabled={stationIds.length === 0}
                placeholder={
                  stationIds.length === 0
                    ? t('inspection.placeholder.pickStationsFirst')
                    : undefined
                }
                loading={staff.isFetching}
                options={staffOptions}
              />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item
              name="cyclePeriod"
              label={t('inspection.field.cyclePeriod')}
              rules={[{ required: true, message: t('inspection.rule.cycleRequired') }]}
            >
              <Select
                data-testid="plan-cycle"
                options={(cycles.length > 0
                  ? cycles.map((c) => c.dictKey)
                  : ['1', '2', '3', '4', '5', '6']
                ).map((k) => ({
                  value: k,
                  label: cycleLabel(
                    t,
                    k,
                    Object.fromEntries(cycles.map((c) => [c.dictKey, c.dictValue])),
                  ),
                }))}
              />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item
              name="alarmDay"
              label={t('inspection.field.alarmDay')}
              rules={[{ required: true, message: t('inspection.rule.alarmDayRequired') }]}
            >
              <Select
                data-testid="plan-alarm-day"
                options={(alarmDays.length > 0
                  ? alarmDays.map((c) => c.dictKey)
                  : ['0', '1', '2', '3', '5', '7']
                ).map((k) => ({
                  value: k,
                  label: alarmDayLabel(
                    t,
                    k,
                    Object.fromEntries(alarmDays.map((c) => [c.dictKey, c.dictValue])),
                  ),
                }))}
              />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item
              name="startDate"
              label={t('inspection.field.startDate')}
              rules={[{ required: true, message: t('inspection.rule.startRequired') }]}
            >
              <DatePicker data-testid="plan-start" style={{ width: '100%' }} inputReadOnly />
            </Form.Item>
          </Col>
          <Col xs={12} md={6}>
            <Form.Item
              name="endDate"
              label={t('inspection.field.endDate')}
              dependencies={['startDate']}
              rules={[
                ({ getFieldValue }) => ({
                  validator: (_, end: Dayjs | null | undefined) => {
                    const start = getFieldValue('startDate') as Dayjs | null | undefined
                    return end && start && end.isBefore(start, 'day')
                      ? Promise.reject(new Error(t('inspection.rule.endBeforeStart')))
                      : Promise.resolve()
                  },
                }),
              ]}
            >
              <DatePicker data-testid="plan-end" style={{ width: '100%' }} inputReadOnly />
            </Form.Item>
          </Col>
          <Col xs={24} md={6}>
            <Form.Item name="enabled" label={t('inspection.field.status')} valuePropName="checked">
              <Switch
                data-testid="plan-enabled"
                checkedChildren={t('inspection.status.enabled')}
                unCheckedChildren={t('inspection.status.disabled')}
              />
            </Form.Item>
          </Col>
          <Col xs={24} md={18}>
            <Form.Item name="remark" label={t('inspection.field.remark')}>
              <Input.TextArea data-testid="plan-remark" rows={2} maxLength={500} />
            </Form.Item>
          </Col>
        </Row>
        <Space wrap>
          <Button
            type="primary"
            loading={busy}
            data-testid="plan-submit"
            onClick={() => void submit()}
          >
            {t('inspection.action.save')}
          </Button>
          <Button data-testid="plan-cancel" onClick={() => void navigate(-1)}>
            {t('inspection.action.cancel')}
          </Button>
        </Space>
      </Form>
      {newItem && (
        <ItemDialog
          item={null}
          save={saveItemAndReturn}
          onClose={() => setNewItem(false)}
          onSaved={(item) => {
            setNewItem(false)
            client.setQueryData(itemListQuery().queryKey, (old: InspectItem[] | undefined) => [
              ...(old ?? []),
              item,
            ])
            void client.invalidateQueries({ queryKey: inspectionKeys.items })
            const chosen = (form.getFieldValue('itemIds') as string[] | undefined) ?? []
            form.setFieldValue('itemIds', [...chosen, item.id])
            void form.validateFields(['itemIds']).catch(() => undefined)
          }}
        />
      )}
    </PageBox>
  )
}
